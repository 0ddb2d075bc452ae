// @ts-check
// A pager's screen as blessed tag strings: its rows with the search's matches marked and
// a status line. Pure, as render.js: sizes in, text out.
import { escapeTags, fit } from './render.js'

/**
 * @typedef {import('./render.js').Style} Style
 * @typedef {import('./pager.js').Row} Row
 */

/**
 * @param {string | null} color
 * @param {string} text already escaped
 * @param {Style} style
 */
export function tint (color, text, style) {
  return style.color && color ? `{${color}-fg}${text}{/${color}-fg}` : text
}

/**
 * A match: reverse video, which means something without colour too; the current one also
 * underlined, or black on yellow with colour.
 * @param {string} text already escaped
 * @param {boolean} current
 * @param {Style} style
 */
function mark (text, current, style) {
  if (current && style.color) return `{black-fg}{yellow-bg}${text}{/yellow-bg}{/black-fg}`
  return current ? `{inverse}{underline}${text}{/underline}{/inverse}` : `{inverse}${text}{/inverse}`
}

/**
 * One screen row: its prefix (or the indent of a wrapped row), then its part of the text.
 * @param {Row} row
 * @param {string} text the item's whole text (escaped for a terminal, not for tags)
 * @param {boolean} current whether the item is the search's current match
 * @param {Style} style
 */
export function renderRow (row, text, current, style) {
  let out = row.prefix ? tint(row.prefix.color, escapeTags(row.prefix.text), style) : ' '.repeat(row.indent)
  let at = row.start
  for (const [start, end] of row.ranges) {
    if (end <= at || start >= row.end) continue
    const from = Math.max(start, at)
    const to = Math.min(end, row.end)
    out += escapeTags(text.slice(at, from)) + mark(escapeTags(text.slice(from, to)), current, style)
    at = to
  }
  return out + escapeTags(text.slice(at, row.end))
}

/**
 * The rows of a pager's screen, top to bottom.
 * @param {import('./pager.js').Pager<any>} pager
 * @param {Style} style
 */
export function renderPage (pager, style) {
  return pager.rows().map((row) => renderRow(row, pager.entry(row.seq).text, row.seq === pager.current, style))
}

/**
 * The status line: what is being typed after `/`, or the search and its matches; following
 * or paused (and how many lines came since); what the view adds (`counts`); cut to the
 * width. The keys are in monit's footer (the view's hints).
 * @param {import('./pager.js').Pager<any>} pager
 * @param {number} width
 * @param {string} counts "120 lines"
 * @param {Style} style
 */
export function renderStatus (pager, width, counts, style) {
  if (pager.input !== null) return escapeTags(`/${pager.input}`.slice(-Math.max(1, width - 1))) + (style.unicode ? '█' : '_')
  const parts = []
  if (pager.query !== '') {
    const { index, count } = pager.matchIndex()
    parts.push(count === 0 ? `"${pager.query}" not found` : `"${pager.query}" ${index}/${count}`)
  }
  const below = pager.follow ? 0 : pager.below()
  parts.push(pager.follow ? 'following' : below > 0 ? `paused, ${below} below` : 'paused')
  parts.push(counts)
  if (!pager.wrap) parts.push('wrap off')
  const text = fit(parts.join(' · '), width).trimEnd()
  return escapeTags(style.unicode ? text : text.replaceAll(' · ', ' | '))
}

/**
 * A full-screen view's page: the body (padded or cut to the height) and the status line.
 * @param {string[]} body rows, tags escaped
 * @param {import('./pager.js').Pager<any>} pager
 * @param {{ width: number, height: number, counts: string, style: Style }} options
 */
export function renderScreen (body, pager, { width, height, counts, style }) {
  const rows = body.slice(0, Math.max(0, height - 1))
  while (rows.length < height - 1) rows.push('')
  return [...rows, renderStatus(pager, width, counts, style)].join('\n')
}
