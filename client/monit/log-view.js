// @ts-check
// monit's full-screen log view: the lines of one app, one worker or all apps in a pager,
// filled from the daemon's ring (logs.tail) and then from the `log` topic. Pure: the command
// fetches and feeds it; log-view's screen is rendered by renderLogView().
import { formatDate } from '../../ipc/date-format.js'
import { escapeControls } from '../../ipc/terminal-text.js'
import { displayText, Pager } from './pager.js'
import { renderPage, renderScreen } from './pager-render.js'

/** Lines the view keeps (the daemon's ring keeps 2000 per app, docs/logs.md). */
export const LOG_VIEW_LINES = 5000
/** ... and characters of them at most, so a flood of long lines stays bounded too. */
export const LOG_VIEW_CHARS = 4 * 1024 * 1024

/**
 * @typedef {import('./model.js').LogEntry} LogEntry
 * @typedef {({ kind: 'all' } | { kind: 'app', name: string } | { kind: 'worker', id: number, name: string, instance: number }) & { host?: string | null }} LogScope
 *   host: with `sup monit --host`, the selection's host (its lines only; the id is that host's)
 */

/** @type {Record<LogEntry['stream'], string>} err red, the supervisor's lines yellow, out cyan (as the small pane) */
const STREAM_COLORS = { out: 'cyan', err: 'red', sup: 'yellow' }

/**
 * Whether a line or event from the stream is of the scope's host (`sup monit --host`); what has
 * no host came from the one the scope's request went to.
 * @param {{ host?: string | null }} scope
 * @param {object} item
 */
export function sameHost (scope, item) {
  const host = /** @type {{ host?: string }} */ (item).host
  return host === undefined || host === (scope.host ?? undefined)
}

export class LogView {
  /** @param {LogScope} scope */
  constructor (scope) {
    this.scope = scope
    /** Whether each line shows the time the daemon read it. */
    this.times = true
    /** @type {Pager<LogEntry>} */
    this.pager = new Pager({
      capacity: LOG_VIEW_LINES,
      maxChars: LOG_VIEW_CHARS,
      textOf: (e) => displayText(e.line, escapeControls),
      prefixOf: (e) => ({ text: `${this.times ? formatDate(e.time, 'HH:mm:ss') + ' ' : ''}${e.app}[${e.instance}] ${e.stream} `, color: STREAM_COLORS[e.stream] ?? null })
    })
    /** Lines from the stream while the history is on its way. @type {LogEntry[] | null} */
    this.early = []
  }

  /** What logs.tail is asked for: an app's name, a worker's id, or null for all. */
  target () {
    return this.scope.kind === 'all' ? null : this.scope.kind === 'app' ? this.scope.name : String(this.scope.id)
  }

  title () {
    const s = this.scope
    return s.kind === 'all' ? 'logs of all apps' : s.kind === 'app' ? `logs of ${s.name} (all workers)` : `logs of ${s.name}[${s.instance}] #${s.id}`
  }

  /** @param {LogEntry} entry */
  accepts (entry) {
    const s = this.scope
    if (s.kind !== 'all' && !sameHost(s, entry)) return false
    return s.kind === 'all' || (s.kind === 'app' ? entry.app === s.name : entry.id === s.id)
  }

  /** A line from the stream; false when it is not this view's. @param {LogEntry} entry */
  add (entry) {
    if (!this.accepts(entry)) return false
    if (this.early === null) this.pager.push(entry)
    else if (this.early.push(entry) > LOG_VIEW_LINES) this.early.shift()
    return true
  }

  /**
   * The history (logs.tail), then what the stream brought meanwhile. The ring's last line
   * and the stream's first may be the same line: lines of the same moment are compared.
   * @param {LogEntry[]} entries oldest first
   */
  load (entries) {
    const last = entries.length > 0 ? entries[entries.length - 1].time : -Infinity
    const seen = new Set(entries.filter((e) => e.time === last).map((e) => `${e.id}\0${e.stream}\0${e.line}`))
    const newer = (this.early ?? []).filter((e) => e.time > last || (e.time === last && !seen.has(`${e.id}\0${e.stream}\0${e.line}`)))
    this.early = null
    this.pager.reset([...entries, ...newer].filter((e) => this.accepts(e)))
  }

  toggleTimes () { this.times = !this.times }
}

/**
 * The page: the lines and a status line (the title is the page's label).
 * @param {LogView} view
 * @param {number} width
 * @param {number} height
 * @param {import('./render.js').Style} style
 * @returns {string}
 */
export function renderLogView (view, width, height, style) {
  const { pager } = view
  pager.resize(width, height - 1)
  const body = view.early !== null ? ['loading...'] : pager.size === 0 ? ['no lines yet'] : renderPage(pager, style)
  return renderScreen(body, pager, { width, height, counts: `${pager.size} lines`, style })
}
