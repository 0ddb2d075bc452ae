// @ts-check
// A strict reader of the Prometheus text format 0.0.4, for tests: it throws on anything a
// Prometheus server would reject, and returns the families with their samples.

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/

/**
 * @typedef {{ labels: Record<string, string>, value: number }} Sample
 * @typedef {{ help: string | null, type: string | null, samples: Sample[] }} Family
 */

/**
 * @param {string} text
 * @returns {Map<string, Family>}
 */
export function parsePrometheus (text) {
  if (!text.endsWith('\n')) throw new Error('the exposition must end with a line feed')
  /** @type {Map<string, Family>} */
  const families = new Map()
  const family = (/** @type {string} */ name) => {
    let f = families.get(name)
    if (!f) families.set(name, (f = { help: null, type: null, samples: [] }))
    return f
  }
  text.slice(0, -1).split('\n').forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`
    if (line === '') return
    const comment = /^# (HELP|TYPE) (\S+) (.*)$/.exec(line)
    if (comment) {
      const [, kind, name, rest] = comment
      if (!NAME.test(name)) throw new Error(`bad metric name, ${where}`)
      const f = family(name)
      if (f.samples.length > 0) throw new Error(`${kind} after the family's samples, ${where}`)
      if (kind === 'HELP') {
        if (f.help !== null) throw new Error(`second HELP, ${where}`)
        f.help = rest.replace(/\\(.)/g, (m, c) => (c === 'n' ? '\n' : c))
      } else {
        if (f.type !== null) throw new Error(`second TYPE, ${where}`)
        if (!['counter', 'gauge', 'histogram', 'summary', 'untyped'].includes(rest)) throw new Error(`bad type, ${where}`)
        f.type = rest
      }
      return
    }
    if (line.startsWith('#')) return
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})? (\S+)( -?\d+)?$/.exec(line)
    if (!m) throw new Error(`not a sample, ${where}`)
    const [, name, , body, value] = m
    // A summary's _sum and _count series belong to its family (kept with the suffix as a label).
    const base = name.replace(/_(sum|count)$/, '')
    const f = families.get(name) ?? (families.get(base)?.type === 'summary' ? families.get(base) : undefined)
    if (!f || f.type === null) throw new Error(`sample before its TYPE, ${where}`)
    /** @type {Record<string, string>} */
    const labels = {}
    let rest = body ?? ''
    while (rest.length > 0) {
      const l = /^([^=]+)="((?:[^"\\]|\\.)*)"(,|$)/.exec(rest)
      if (!l || !LABEL_NAME.test(l[1])) throw new Error(`bad label at ${JSON.stringify(rest)}, ${where}`)
      if (l[1] in labels) throw new Error(`repeated label ${l[1]}, ${where}`)
      labels[l[1]] = l[2].replace(/\\(.)/g, (s, c) => {
        if (!['\\', '"', 'n'].includes(c)) throw new Error(`bad escape \\${c} in a label value, ${where}`)
        return c === 'n' ? '\n' : c
      })
      rest = rest.slice(l[0].length)
    }
    const number = value === '+Inf' ? Infinity : value === '-Inf' ? -Infinity : value === 'NaN' ? NaN : Number(value)
    if (Number.isNaN(number) && value !== 'NaN') throw new Error(`bad value, ${where}`)
    f.samples.push(families.get(name) === f ? { labels, value: number } : { labels: { ...labels, __series: name }, value: number })
  })
  for (const [name, f] of families) {
    if (f.help === null || f.type === null) throw new Error(`${name} lacks HELP or TYPE`)
  }
  return families
}
