// @ts-check
// The text of each monit pane, as blessed tag strings. Pure: widths in, lines out, so the
// layout is tested without a terminal. Colour is a tag around a word and nothing else, so
// with colour off the same text is shown plain.
import { escapeControls } from '../../ipc/terminal-text.js'
import { formatBytes, formatDuration } from '../format.js'

const BLOCKS = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█']
const ASCII_BLOCKS = ['.', '.', ':', ':', '=', '=', '#', '#']

/** @type {Record<string, string>} */
// No grey: an 8-colour terminal shows it as black (30). Stopped is in the terminal's own colour.
const STATUS_COLORS = { online: 'green', starting: 'cyan', stopping: 'yellow', waiting: 'yellow', errored: 'red' }

/**
 * @typedef {{ color: boolean, unicode: boolean }} Style
 * @typedef {import('./model.js').WorkerView} WorkerView
 */

/**
 * Escape text for a blessed tag string: braces would start a tag, control characters (an
 * app's escape sequences) would reach the terminal.
 * @param {string} text
 */
export function escapeTags (text) {
  return escapeControls(text).replace(/[{}]/g, (c) => (c === '{' ? '{open}' : '{close}'))
}

/**
 * @param {string} color
 * @param {string} text already escaped
 * @param {Style} style
 */
function paint (color, text, style) {
  return style.color && color ? `{${color}-fg}${text}{/${color}-fg}` : text
}

/**
 * Pad or cut to exactly `width` characters.
 * @param {string} text
 * @param {number} width
 * @param {'left' | 'right'} [align]
 */
export function fit (text, width, align = 'left') {
  if (width <= 0) return ''
  // '~' rather than '…': terminals disagree on the width of '…' (East Asian ambiguous).
  const cut = text.length > width ? text.slice(0, Math.max(0, width - 1)) + '~' : text
  return align === 'left' ? cut.padEnd(width) : cut.padStart(width)
}

/** @param {number} cpu */
export function formatCpu (cpu) {
  return cpu < 10 ? `${cpu.toFixed(1)}%` : `${Math.round(cpu)}%`
}

/** Columns of the left pane after the name. */
const COLUMNS = /** @type {const} */ ([['status', 8, 'left'], ['cpu', 6, 'right'], ['mem', 7, 'right'], ['rst', 4, 'right'], ['up', 4, 'right']])
/** The name column is never narrower than this: columns on the right go first (up, rst, mem). */
const NAME_MIN = 14

/**
 * The columns shown in a list `width` wide, and the name column's width.
 * @param {number} width
 */
export function columnsFor (width) {
  let count = COLUMNS.length
  const fixed = (/** @type {number} */ n) => COLUMNS.slice(0, n).reduce((sum, [, w]) => sum + w + 1, 0)
  while (count > 1 && width - fixed(count) < NAME_MIN) count--
  return { columns: COLUMNS.slice(0, count), name: Math.max(4, width - fixed(count)) }
}

/** How wide a list wants to be for names up to `longest` characters: 24 to 40 for the name column. @param {number} longest */
export function listWidthFor (longest) {
  return Math.min(40, Math.max(24, longest)) + COLUMNS.reduce((n, [, w]) => n + w + 1, 0)
}

/**
 * What an app that keeps going down last did, in a word or two: 'exit 1', 'SIGSEGV', 'EACCES'.
 * @param {import('../../ipc/events.js').SupEvent} event
 */
export function lastExitOf (event) {
  const data = /** @type {Record<string, unknown>} */ (event.data ?? {})
  if (event.kind === 'spawn-error') return typeof data.code === 'string' ? data.code : 'spawn error'
  if (event.kind === 'memory-limit') return 'memory limit'
  if (event.kind === 'liveness') return 'liveness'
  if (event.kind === 'killed') return 'SIGKILL'
  if (typeof data.signal === 'string') return data.signal
  if (typeof data.code === 'number') return `exit ${data.code}`
  return event.kind
}

/**
 * The header of the left pane; the column the list is sorted by carries an arrow.
 * @param {number} width
 * @param {{ label: string, descending: boolean } | null} [sort]
 * @param {boolean} [unicode]
 */
export function renderListHeader (width, sort = null, unicode = true) {
  const mark = (/** @type {string} */ label) => sort?.label === label ? label + (sort.descending ? (unicode ? '↓' : 'v') : (unicode ? '↑' : '^')) : label
  const shown = columnsFor(width)
  return fit(mark('name'), shown.name) + shown.columns.map(([label, w, align]) => ' ' + fit(mark(label), w, align)).join('')
}

/**
 * The first line: the host's totals, then how many apps and workers are shown. Plain text.
 * @param {import('./host.js').HostTotals | null} host
 * @param {{ apps: number, workers: number, online: number }} counts
 * @param {number} width
 * @param {boolean} unicode
 */
export function renderHeader (host, counts, width, unicode) {
  const sep = unicode ? ' · ' : ' | '
  const parts = []
  if (host) {
    parts.push(`host cpu ${host.cpu === null ? '-' : formatCpu(host.cpu)} of ${host.cores} core${host.cores === 1 ? '' : 's'}`)
    parts.push(`mem ${formatBytes(host.used)}/${formatBytes(host.total)} (${Math.round((100 * host.used) / Math.max(1, host.total))}%)`)
    parts.push(`load ${host.load.map((l) => l.toFixed(2)).join(' ')}`)
  }
  parts.push(`${counts.apps} app${counts.apps === 1 ? '' : 's'}, ${counts.online}/${counts.workers} workers online`)
  let line = ''
  for (const part of parts) {
    const next = line ? line + sep + part : part
    if (next.length > width) break
    line = next
  }
  return line
}

/**
 * The hosts' totals for `sup monit --host`, one part per host while they fit: apps, workers
 * online, CPU and memory of its workers. Plain text; '' without hosts.
 * @param {Map<string, { apps: number, workers: number, online: number, cpu: number, memory: number }>} totals
 * @param {number} width
 * @param {boolean} unicode
 */
export function renderHostTotals (totals, width, unicode) {
  const sep = unicode ? ' · ' : ' | '
  let line = ''
  for (const [host, t] of totals) {
    const part = `${host}: ${t.apps} app${t.apps === 1 ? '' : 's'} ${t.online}/${t.workers} up ${formatCpu(t.cpu)} ${formatBytes(t.memory)}`
    const next = line ? line + sep + part : part
    if (next.length > width) break
    line = next
  }
  return line
}

/**
 * The footer: as many whole key hints as fit beside the message (on the right), never a word
 * cut; a message longer than the line is cut at a word, with '~'.
 * @param {string[]} hints
 * @param {string} message
 * @param {number} width
 * @param {boolean} unicode
 * @returns {{ keys: string, gap: string, message: string }} plain text, together at most width
 */
export function renderFooter (hints, message, width, unicode) {
  const sep = unicode ? ' · ' : ' | '
  const said = cutAtWord(message, width)
  const room = width - (said ? said.length + 2 : 0)
  let keys = ''
  for (const hint of hints) {
    const next = keys ? keys + sep + hint : hint
    if (next.length > room) break
    keys = next
  }
  return { keys, gap: ' '.repeat(Math.max(0, width - keys.length - said.length)), message: said }
}

/**
 * @param {string} text
 * @param {number} width
 */
export function cutAtWord (text, width) {
  if (text.length <= width) return text
  const space = text.lastIndexOf(' ', width - 1)
  return text.slice(0, space > 0 ? space : Math.max(0, width - 1)) + '~'
}

/**
 * One line of the left pane.
 * @param {import('./model.js').Line} line
 * @param {number} width
 * @param {boolean} selected
 * @param {Style} style
 */
export function renderLine (line, width, selected, style) {
  const shown = columnsFor(width)
  const nameWidth = shown.name
  let why = ''
  let name, status, cpu, memory, restarts, uptime, statusColor
  if (line.kind === 'app') {
    const { workers } = line
    const online = workers.filter((w) => w.status === 'online').length
    const worst = workers.find((w) => w.status === 'errored') ?? workers.find((w) => w.status !== 'online')
    status = online === workers.length ? 'online' : worst && workers.length === 1 ? worst.status : `${online}/${workers.length} up`
    statusColor = online === workers.length ? 'green' : STATUS_COLORS[worst?.status ?? ''] ?? (worst?.status === 'stopped' ? '' : 'yellow')
    // Dying every few seconds is not "online", whatever the status between two deaths.
    if (line.crashing) {
      status = `crash${style.unicode ? '×' : 'x'}${line.crashing.count}`
      statusColor = 'red'
    }
    // Another machine's app (`sup monit --host`): its host first, where the eye starts.
    name = `${line.expanded ? '▾' : '▸'} ${line.host ? `${line.host} ` : ''}${line.name}${line.expanded ? '' : ` (${workers.length})`}`
    // How it last went down, where the eye is: the code or signal, then why.
    if (line.crashing) {
      const reason = workers.map((w) => w.last_exit?.reason).find((r) => r) ?? line.crashing.last.message
      why = ` ${lastExitOf(line.crashing.last)}: ${reason}`
    }
    cpu = workers.reduce((n, w) => n + w.cpu, 0)
    memory = workers.reduce((n, w) => n + w.memory, 0)
    restarts = workers.reduce((n, w) => n + w.restarts, 0)
    const running = workers.filter((w) => w.uptime > 0)
    uptime = running.length > 0 ? Math.min(...running.map((w) => w.uptime)) : 0
  } else {
    const w = line.worker
    name = `  ${line.last ? '└' : '├'} #${w.id}`
    if (w.pid !== null && name.length + 5 + String(w.pid).length <= nameWidth) name += ` pid ${w.pid}`
    status = w.status
    statusColor = STATUS_COLORS[w.status] ?? ''
    cpu = w.cpu
    memory = w.memory
    restarts = w.restarts
    uptime = w.uptime
  }
  if (!style.unicode) name = name.replace('▾', 'v').replace('▸', '>').replace('└', '`').replace('├', '|')
  const nameCell = fit(name + why, nameWidth)
  const values = [formatCpu(cpu), formatBytes(memory), String(restarts), formatDuration(uptime)]
  const cells = [
    why && nameCell.length > name.length ? escapeTags(nameCell.slice(0, name.length)) + paint('red', escapeTags(nameCell.slice(name.length)), style) : escapeTags(nameCell),
    paint(statusColor, escapeTags(fit(status, 8)), style),
    ...shown.columns.slice(1).map(([, w, align], i) => fit(values[i], w, align))
  ]
  const text = cells.join(' ')
  return selected ? `{inverse}${text}{/inverse}` : text
}

/**
 * A chart `rows` lines high and `width` columns wide of the newest values, scaled to `max`.
 * @param {number[]} values
 * @param {number} width
 * @param {number} rows
 * @param {number} max
 * @param {boolean} unicode
 * @param {boolean} [line] only the top cell of each column: a level that hardly moves (memory)
 *   reads as a line at its height, not as a solid block
 * @returns {string[]} top line first
 */
export function renderChart (values, width, rows, max, unicode, line = false) {
  const blocks = unicode ? BLOCKS : ASCII_BLOCKS
  const shown = values.slice(-width)
  const pad = width - shown.length
  const lines = []
  for (let row = rows - 1; row >= 0; row--) {
    let text = ' '.repeat(pad)
    for (const v of shown) {
      // Eighths of a row: 8 per line, counted from the bottom; a non-zero value shows at least one.
      const eighths = max > 0 ? Math.max(v > 0 ? 1 : 0, Math.round((v / max) * rows * 8)) : 0
      const level = eighths - row * 8
      text += level <= 0 || (line && level > 8) ? ' ' : blocks[Math.min(8, level) - 1]
    }
    lines.push(text)
  }
  return lines
}

/**
 * The right-top pane: the selection's figures and charts.
 * @param {{ label: string, workers: WorkerView[], crashing?: import('./model.js').Crashing | null, limit?: number | null } | null} selected
 *   limit: max_memory_restart times the workers shown, when the app has one
 * @param {import('./model.js').Series} series
 * @param {number} width inner width
 * @param {number} height inner height
 * @param {Style} style
 * @returns {string}
 */
export function renderFigures (selected, series, width, height, style) {
  if (!selected) return 'no apps (start one with: sup start app.js)'
  const { workers } = selected
  const cpu = workers.reduce((n, w) => n + w.cpu, 0)
  const memory = workers.reduce((n, w) => n + w.memory, 0)
  const loops = workers.map((w) => w.loop_delay).filter((l) => l)
  const heaps = workers.map((w) => w.heap).filter((h) => h)
  const footer = []
  if (loops.length > 0) {
    const p50 = Math.max(...loops.map((l) => /** @type {any} */ (l).p50))
    const p99 = Math.max(...loops.map((l) => /** @type {any} */ (l).p99))
    footer.push(`loop p50/p99 ${formatMs(p50)}/${formatMs(p99)}`)
  }
  if (heaps.length > 0) {
    const used = heaps.reduce((n, h) => n + /** @type {any} */ (h).used, 0)
    const total = heaps.reduce((n, h) => n + /** @type {any} */ (h).total, 0)
    footer.push(`heap ${formatBytes(used)}/${formatBytes(total)}`)
  }
  const processes = workers.reduce((n, w) => n + (w.processes ?? 0), 0)
  footer.push(`${processes} proc`)
  if (workers.length === 1 && workers[0].pid !== null) footer.push(`pid ${workers[0].pid}`)
  // Probes (docs/probes.md): workers not ready now, and restarts their liveness probe caused.
  const unready = workers.filter((w) => w.ready === false).length
  if (unready > 0) footer.push(`${unready} not ready`)
  const live = workers.reduce((n, w) => n + (w.liveness_restarts ?? 0), 0)
  const last = workers.map((w) => w.last_restart).filter((r) => r).sort((x, y) => /** @type {any} */ (y).at - /** @type {any} */ (x).at)[0]
  if (live > 0) footer.push(`${live} liveness restart${live === 1 ? '' : 's'}${last ? ` (${last.reason.replace(/^liveness probe failed: /, '')})` : ''}`)
  // Why it keeps going down, first, where the eye goes.
  if (selected.crashing) footer.unshift(`crashing: ${selected.crashing.count} in 60s, last: ${selected.crashing.last.message}`)
  // Two charts share what is left after their two title lines and the footer.
  const cpuRows = Math.max(1, Math.ceil((height - 3) / 2))
  const memRows = Math.max(1, Math.floor((height - 3) / 2))
  // cpu: 100% of one core, or a round figure above the highest value shown if more.
  const cpuMax = Math.max(...series.cpu) > 100 ? niceCeil(Math.max(...series.cpu)) : 100
  // memory: the limit when there is one (max_memory_restart: the chart full is a replacement);
  // else a round figure above the highest value, so a flat line is not a solid block.
  const limit = selected.limit ?? null
  const memPeak = Math.max(1, ...series.memory)
  const memMax = limit !== null ? Math.max(limit, memPeak) : niceCeil((1.25 * memPeak) / MIB) * MIB
  const memTitle = limit !== null ? `memory of max_memory_restart (${formatBytes(limit)}${workers.length > 1 ? ` for ${workers.length} workers` : ''}): ${Math.round((100 * memory) / limit)}%` : 'memory (no max_memory_restart)'
  const lines = [
    `{bold}${escapeTags(fit(selected.label, Math.max(1, width - 23)))}{/bold} ${fit(`cpu ${formatCpu(cpu)}`, 10, 'right')} ${fit(`mem ${formatBytes(memory)}`, 11, 'right')}`,
    ...withAxis(renderChart(series.cpu, width - AXIS, cpuRows, cpuMax, style.unicode), `${cpuMax}%`, 'cpu', '0%', 'green', style),
    escapeTags(fit(memTitle, width)),
    ...withAxis(renderChart(series.memory, width - AXIS, memRows, memMax, style.unicode, limit === null), formatBytes(memMax), 'mem', '0', 'cyan', style),
    escapeTags(fit(cutAtWord(footer.join(' · ').replaceAll(' · ', style.unicode ? ' · ' : ' | '), width), width))
  ]
  return lines.slice(0, height).join('\n')
}

const MIB = 1024 * 1024
/** Columns of a chart's scale on its left: the label and the axis line. */
const AXIS = 7

/**
 * The smallest of 1, 1.5, 2, 2.5, 3, 4, 5, 6, 8 times a power of ten that is at least `value` (a chart's top).
 * @param {number} value
 */
export function niceCeil (value) {
  if (!(value > 0)) return 1
  const magnitude = 10 ** Math.floor(Math.log10(value))
  for (const step of [1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10]) if (step * magnitude >= value) return step * magnitude
  return 10 * magnitude
}

/**
 * A chart's lines with its scale on the left: the top value, what it shows, 0 at the bottom.
 * @param {string[]} chart plain
 * @param {string} top
 * @param {string} name
 * @param {string} bottom
 * @param {string} color
 * @param {Style} style
 */
function withAxis (chart, top, name, bottom, color, style) {
  const line = style.unicode ? '┤' : '|'
  const middle = Math.floor((chart.length - 1) / 2)
  return chart.map((row, i) => {
    // Too short for a middle line: what it shows goes with the 0 ('cpu 0%'); on a single row
    // (80x24) only what it shows, else the two charts could not be told apart.
    const label = chart.length === 1 ? name : i === 0 ? top : i === chart.length - 1 ? (chart.length < 3 ? `${name} ${bottom}` : bottom) : i === middle ? name : ''
    return `${fit(label, AXIS - 1, 'right')}${line}${paint(color, row, style)}`
  })
}

/** @param {number} ms */
function formatMs (ms) {
  return ms < 10 ? `${ms.toFixed(1)}ms` : `${Math.round(ms)}ms`
}

/**
 * The right-bottom pane: log lines of the selection, newest at the bottom.
 * @param {import('./model.js').LogEntry[]} entries
 * @param {number} width
 * @param {Style} style
 */
export function renderLogs (entries, width, style) {
  return entries.map((e) => {
    const prefix = `${e.app}[${e.instance}] ${e.stream}`
    const text = escapeTags(fit(`${prefix} ${escapeControls(e.line)}`, width).trimEnd())
    const head = escapeTags(prefix)
    const body = text.slice(head.length)
    // err red, the supervisor's own lines (why a worker went down) yellow, out cyan
    return paint(e.stream === 'err' ? 'red' : e.stream === 'sup' ? 'yellow' : 'cyan', head, style) + body
  }).join('\n')
}
