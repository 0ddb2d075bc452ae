// @ts-check
// Output for people: tables, durations, sizes, colour (off when not a TTY or NO_COLOR is set).
import { escapeControls, escapeDeep } from '../ipc/terminal-text.js'

let colorOff = false

/** `--no-color`: for this command. Not through NO_COLOR, which `sup start` would hand to the app. */
export function turnColorOff () {
  colorOff = true
}

/** @param {NodeJS.WriteStream} stream */
export function colorEnabled (stream = process.stdout) {
  return !colorOff && Boolean(stream.isTTY) && !('NO_COLOR' in process.env) && process.env.TERM !== 'dumb'
}

const CODES = { red: 31, green: 32, yellow: 33, blue: 34, magenta: 35, cyan: 36, gray: 90, bold: 1 }

/**
 * @param {keyof typeof CODES} color
 * @param {string} text
 * @param {boolean} [enabled]
 */
export function paint (color, text, enabled = colorEnabled()) {
  return enabled ? `\u001b[${CODES[color]}m${text}\u001b[0m` : text
}

/** @type {Record<string, keyof typeof CODES>} */
const STATUS_COLORS = { online: 'green', starting: 'cyan', stopping: 'yellow', waiting: 'yellow', stopped: 'gray', errored: 'red', deleted: 'gray' }

/** @param {string} status */
export function paintStatus (status) {
  return paint(STATUS_COLORS[status] ?? 'bold', status)
}

/** @param {number} ms */
export function formatDuration (ms) {
  if (ms <= 0) return '0s'
  const s = Math.floor(ms / 1000)
  if (s < 60) return `${s}s`
  const m = Math.floor(s / 60)
  if (m < 60) return `${m}m`
  const h = Math.floor(m / 60)
  if (h < 24) return `${h}h`
  return `${Math.floor(h / 24)}d`
}

/** @param {number} bytes */
export function formatBytes (bytes) {
  if (!bytes) return '0b'
  const units = ['b', 'kb', 'mb', 'gb', 'tb']
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value >= 100 || unit === 0 ? Math.round(value) : value.toFixed(1)}${units[unit]}`
}

/** Visible width, ignoring colour codes. @param {string} text */
function width (text) {
  // eslint-disable-next-line no-control-regex
  return text.replace(/\u001b\[[0-9;]*m/g, '').length
}

/**
 * A plain aligned table.
 * @param {string[]} headers
 * @param {string[][]} rows
 */
export function renderTable (headers, rows) {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => width(r[i]))))
  const line = (/** @type {string[]} */ cells) => cells.map((c, i) => c + ' '.repeat(widths[i] - width(c))).join('  ').trimEnd()
  return [line(headers.map((h) => paint('bold', h))), ...rows.map(line)].join('\n')
}

const WORKER_COLUMNS = ['id', 'name', 'mode', 'pid', 'status', 'restarts', 'uptime', 'cpu', 'mem']

/**
 * The `sup ls` table; with `hosts` (sup --host), a host column first (rows carry `host`),
 * and a row for each host that did not answer.
 * @param {Array<import('../ipc/methods.js').WorkerRow & { host?: string }>} rows
 * @param {{ hosts?: string[] }} [options] hosts: the hosts that did not answer
 */
export function renderWorkers (rows, { hosts } = {}) {
  if (hosts === undefined) {
    return rows.length === 0 ? 'no apps (start one with: sup start app.js)' : renderTable(WORKER_COLUMNS, rows.map(workerCells))
  }
  const failed = hosts.map((host) => [escapeControls(host), ...WORKER_COLUMNS.map((c) => c === 'status' ? paint('red', 'unreachable') : '-')])
  return renderTable(['host', ...WORKER_COLUMNS], [...rows.map((r) => [escapeControls(r.host ?? ''), ...workerCells(r)]), ...failed])
}

/**
 * One worker's cells of the `sup ls` table.
 * @param {import('../ipc/methods.js').WorkerRow} r
 */
function workerCells (r) {
  return [
    String(r.id),
    escapeControls(r.name),
    r.mode,
    r.pid === null ? '-' : String(r.pid),
    paintStatus(r.status),
    String(r.restarts),
    formatDuration(r.uptime),
    `${Math.round(r.cpu)}%`,
    formatBytes(r.memory)
  ]
}

/**
 * One line per worker whose logs are in trouble, for under the `sup ls` table.
 * @param {Array<import('../ipc/methods.js').WorkerRow>} rows
 * @returns {string[]}
 */
export function renderLogWarnings (rows) {
  const lines = []
  for (const r of rows) {
    const who = `${r.name}[${r.instance}]`
    // The message may name a log path of the app's config: escaped (ipc/terminal-text.js).
    if (r.log_error) lines.push(`${paint('yellow', 'warning')}: ${who} ${escapeControls(r.log_error.message)}`)
    else if (r.log_dropped_lines > 0) lines.push(`${paint('yellow', 'warning')}: ${who} ${r.log_dropped_lines} log line(s) (${formatBytes(r.log_dropped_bytes)}) dropped: the disk did not keep up (sup describe ${r.name})`)
  }
  return lines
}

/**
 * How a worker last ended, in words: "code 3", "signal SIGKILL".
 * @param {{ code: number | null, signal: string | null }} exit
 */
export function describeExit (exit) {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`
}

/**
 * One line per app with workers down and waiting to be retried (or given up on for now), for
 * under the `sup ls` table: the last exit and when the next try comes, so an `errored` status
 * is never the whole story (the reasons in full: `sup events <app>`).
 * @param {Array<import('../ipc/methods.js').WorkerRow>} rows
 * @param {number} now ms since the epoch
 * @returns {string[]}
 */
export function renderRestartNotes (rows, now) {
  return restartNotes(rows, now).map(({ name, loop, text }) => `${loop ? paint('red', 'crash loop') : paint('yellow', 'restarting')}: ${name}: ${text} (sup events ${name})`)
}

/**
 * The same notes as data, for sup ls and monit's events view: per app, whether it is a
 * crash loop (errored workers) and "last exit code 3 (worker 0, 4s ago); next try in 27s".
 * @param {Array<import('../ipc/methods.js').WorkerRow>} rows
 * @param {number} now ms since the epoch
 * @returns {Array<{ name: string, loop: boolean, text: string }>}
 */
export function restartNotes (rows, now) {
  /** @type {Map<string, Array<import('../ipc/methods.js').WorkerRow>>} */
  const byApp = new Map()
  for (const r of rows) {
    if (r.status !== 'waiting' && r.status !== 'errored') continue
    byApp.set(r.name, [...(byApp.get(r.name) ?? []), r])
  }
  return [...byApp].map(([name, down]) => {
    const last = down.reduce((a, b) => ((b.last_exit?.at ?? 0) > (a.last_exit?.at ?? 0) ? b : a))
    const how = last.last_exit?.reason ?? (last.last_exit && `last exit ${describeExit(last.last_exit)}`)
    const exit = last.last_exit ? `${how} (worker ${last.id}, ${formatDuration(now - last.last_exit.at)} ago)` : 'not started yet'
    const next = Math.min(...down.map((r) => r.retry_at ?? Infinity))
    const retry = Number.isFinite(next) ? `; next try in ${formatDuration(Math.max(0, next - now) + 999)}` : ''
    return { name, loop: down.some((r) => r.status === 'errored'), text: `${exit}${retry}` }
  })
}

/**
 * What `sup resurrect` (and `sup update`) print for a dump.resurrect answer; the exit code.
 * @param {any} result
 * @param {import('./cli.js').CliIo} io
 * @param {boolean} [json] the answer as JSON on stdout instead of the lines for people
 */
export function reportResurrect (result, io, json = false) {
  if (json) io.out(JSON.stringify(result))
  else for (const line of resurrectLines(result, io)) io.out(line)
  /** @type {Array<import('../ipc/methods.js').WorkerRow>} */
  const failed = result.workers.filter((/** @type {import('../ipc/methods.js').WorkerRow} */ r) => r.status === 'errored')
  if (failed.length === 0) return 0
  io.err(`sup: ${failed.length} worker(s) of ${[...new Set(failed.map((r) => r.name))].join(', ')} did not come online (sup logs ${failed[0].name} --nostream shows why)`)
  return 1
}

/**
 * @param {any} answer a dump.resurrect answer
 * @param {import('./cli.js').CliIo} io its warnings go to stderr
 * @returns {string[]} the lines for stdout
 */
function resurrectLines (answer, io) {
  const result = escapeDeep(answer)
  for (const warning of result.warnings) io.err(`sup: warning: ${warning}`)
  if (result.source === null) return [`nothing to resurrect: no saved apps in ${result.file}`]
  if (result.apps.length === 0) return [`nothing to resurrect: every app in ${result.source} is already there (${result.skipped.join(', ') || 'none saved'})`]
  // The apps named as already there are in the table too (result.present, when the caller
  // listed them): a line should not name apps its table leaves out.
  const rows = [...result.workers, ...(result.present ?? [])].sort((a, b) => a.id - b.id)
  return [
    `resurrected ${result.apps.join(', ')} from ${result.source}${result.skipped.length ? ` (already there: ${result.skipped.join(', ')})` : ''}`,
    renderWorkers(rows)
  ]
}
