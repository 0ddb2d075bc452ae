// @ts-check
// The detail view of `sup monit` (key d): what `sup describe` knows of the selected app,
// from the same request (app.describe) and the same helpers, on one scrollable page.
import { escapeDeep } from '../../ipc/terminal-text.js'
import { describeCgroups, describeContainment, describeEvents, describeProbes, describeRuntimes } from '../commands/describe.js'
import { formatBytes, formatDuration } from '../format.js'
import { escapeTags } from './render.js'

/** The config keys shown first, in this order; the others follow under "other settings". */
const FIRST = ['script', 'args', 'cwd', 'interpreter', 'interpreter_args', 'node_args', 'exec_mode', 'instances', 'namespace']
/** Limits: what makes sup stop or restart the app by itself. */
const LIMITS = ['max_memory_restart', 'max_memory', 'memory_high', 'cpu_limit', 'max_pids', 'max_restarts', 'min_uptime', 'restart_delay', 'exp_backoff_restart_delay', 'kill_timeout', 'listen_timeout', 'cron_restart', 'autorestart']
const IN_BYTES = new Set(['max_memory_restart', 'max_memory', 'memory_high'])
const IN_MS = new Set(['min_uptime', 'restart_delay', 'exp_backoff_restart_delay', 'kill_timeout', 'listen_timeout'])

/**
 * @param {unknown} value
 * @returns {string}
 */
function show (value) {
  if (typeof value === 'string') return value
  return JSON.stringify(value) ?? String(value)
}

/**
 * The page's lines (plain text; the view escapes them).
 * @param {any} described app.describe's answer
 * @param {number} [now]
 * @returns {string[]}
 */
export function detailLines (described, now = Date.now()) {
  // Every string of it (env, paths, script, messages) may be anyone's text.
  const info = escapeDeep(described)
  const config = info.config ?? {}
  const workers = info.workers ?? []
  const pad = (/** @type {string} */ key) => key.padEnd(27)
  const lines = [`app ${info.name}`, '']
  for (const key of FIRST) if (config[key] !== undefined && config[key] !== null && !(Array.isArray(config[key]) && config[key].length === 0)) lines.push(`${pad(key)}${show(config[key])}`)
  lines.push(...describeRuntimes(workers).filter((l) => l !== ''))
  lines.push('', 'limits')
  for (const key of LIMITS) {
    if (config[key] === undefined || config[key] === null) continue
    const value = typeof config[key] !== 'number' ? show(config[key]) : IN_BYTES.has(key) ? formatBytes(config[key]) : IN_MS.has(key) ? `${config[key]} ms` : key === 'cpu_limit' ? `${config[key]} cores` : show(config[key])
    lines.push(`  ${pad(key)}${value}`)
  }
  // Where the kernel keeps the app's processes, and what it counts there (issue 24).
  if (info.containment) lines.push('', describeContainment(info.containment))
  lines.push(...describeCgroups(workers).flatMap((block) => block.split('\n')))
  const listen = Array.isArray(config.listen) ? config.listen : []
  lines.push('', `${pad('listen sockets')}${listen.length > 0 ? listen.join(', ') : '(none bound by sup; the app opens its own)'}`)
  lines.push('', 'log files')
  for (const file of info.logs ?? []) lines.push(`  ${file}`)
  lines.push('', 'workers')
  for (const w of workers) {
    const exit = w.last_exit ? `last exit ${w.last_exit.signal ? `signal ${w.last_exit.signal}` : `code ${w.last_exit.code}`} ${formatDuration(now - w.last_exit.at)} ago${w.last_exit.reason ? ` (${w.last_exit.reason})` : ''}` : 'no exit yet'
    lines.push(`  #${w.id} [${w.instance}] ${w.status} pid ${w.pid ?? '-'} · up ${formatDuration(w.uptime ?? 0)} · ${w.restarts} restart(s) · ${exit}`)
  }
  const probes = describeProbes(config, workers, now).filter((l) => l !== '')
  lines.push('', ...(probes.length > 0 ? probes : ['probes: none (docs/probes.md)']))
  const rest = Object.keys(config).filter((k) => !FIRST.includes(k) && !LIMITS.includes(k) && k !== 'listen' && k !== 'env' && k !== 'name').sort()
  if (rest.length > 0) {
    lines.push('', 'other settings')
    for (const key of rest) lines.push(`  ${pad(key)}${show(config[key])}`)
  }
  lines.push(...describeEvents(info.events ?? [], info.name, now))
  return lines
}

/**
 * Long lines (a deep script path) go on under themselves, indented, rather than cut.
 * @param {string[]} lines
 * @param {number} width
 */
export function wrapLines (lines, width) {
  return lines.flatMap((line) => {
    if (line.length <= width || width < 8) return [line.slice(0, Math.max(1, width))]
    const out = [line.slice(0, width)]
    for (let at = width; at < line.length; at += width - 4) out.push('    ' + line.slice(at, at + width - 4))
    return out
  })
}

/**
 * The detail view: fetched on opening, and again every few seconds while it shows.
 * @param {import('./views.js').ViewContext} ctx
 * @returns {import('./views.js').MonitView & { offset: number }}
 */
export function createDetailView (ctx) {
  /** @type {string[]} */
  let lines = ['loading...']
  let app = ''
  const view = {
    name: 'detail',
    title: 'detail view',
    openKeys: ['d'],
    openHelp: 'details of the selected app: config, runtime, limits, paths, pids, sockets',
    hint: 'd detail',
    offset: 0,
    keys: [
      { keys: ['j', 'down'], action: 'detail.down', help: 'scroll down' },
      { keys: ['k', 'up'], action: 'detail.up', help: 'scroll up' },
      { keys: ['pagedown', 'space', 'C-f'], action: 'detail.page.down', help: 'a page down' },
      { keys: ['pageup', 'C-b'], action: 'detail.page.up', help: 'a page up' },
      { keys: ['d'], action: 'back', hint: 'd/Esc back', help: 'back to the list' }
    ],
    actions: {
      'detail.down': () => scroll(1),
      'detail.up': () => scroll(-1),
      'detail.page.down': () => scroll(ctx.pageHeight() - 1),
      'detail.page.up': () => scroll(1 - ctx.pageHeight())
    },
    label: () => `detail ${app}`,
    /** @param {number} width @param {number} height */
    render: (width, height) => wrapLines(lines, width).slice(view.offset, view.offset + height).map(escapeTags).join('\n'),
    open: async () => {
      const selected = ctx.model.selected()
      if (!selected) return
      app = selected.app
      view.offset = 0
      lines = ['loading...']
      try {
        lines = detailLines(await ctx.request('app.describe', { target: app }))
      } catch (err) {
        lines = [`sup: ${/** @type {Error} */ (err).message}`]
      }
      ctx.redraw()
    }
  }
  /** @param {number} delta */
  const scroll = (delta) => { view.offset = Math.max(0, Math.min(lines.length - 1, view.offset + delta)) }
  return view
}
