// @ts-check
// monit's events view: the supervisor's decisions and their reasons (docs/events.md) for
// one app or all, newest at the bottom, in a pager; above them, for each app whose workers
// are down, the last exit and a countdown to the next restart. Fed by events.list, then
// by the `event` topic. Pure, as log-view.js.
import { formatDate } from '../../ipc/date-format.js'
import { escapeControls } from '../../ipc/terminal-text.js'
import { restartNotes } from '../format.js'
import { Pager } from './pager.js'
import { renderPage, renderScreen, tint } from './pager-render.js'
import { sameHost } from './log-view.js'
import { escapeTags, fit } from './render.js'

/** Events the view keeps: as many as the daemon does (docs/events.md). */
export const EVENTS_VIEW_EVENTS = 1000

/**
 * @typedef {import('../../ipc/events.js').SupEvent} SupEvent
 * @typedef {({ kind: 'all' } | { kind: 'app', name: string }) & { host?: string | null }} EventsScope
 *   host: with `sup monit --host`, the selection's host (its events only)
 */

/** @type {Record<string, string | null>} */
const LEVEL_COLORS = { info: null, warn: 'yellow', error: 'red' }

export class EventsView {
  /** @param {EventsScope} scope */
  constructor (scope) {
    this.scope = scope
    /** @type {Pager<SupEvent>} */
    this.pager = new Pager({
      capacity: EVENTS_VIEW_EVENTS,
      textOf: (e) => escapeControls(`${e.kind.padEnd(14)} ${e.message}`),
      prefixOf: (e) => ({ text: `${formatDate(e.at, 'MM-DD HH:mm:ss')} ${(e.id === null ? e.app : `${e.app}:${e.id}`).padEnd(14)} `, color: LEVEL_COLORS[e.level] ?? null })
    })
    /** Events from the stream while the history is on its way. @type {SupEvent[] | null} */
    this.early = []
    this.last = -1
  }

  /** What events.list is asked for. */
  target () {
    return this.scope.kind === 'all' ? null : this.scope.name
  }

  title () {
    return this.scope.kind === 'all' ? 'events of all apps' : `events of ${this.scope.name}`
  }

  /** @param {SupEvent} event */
  accepts (event) {
    const s = this.scope
    return s.kind === 'all' || (event.app === s.name && sameHost(s, event))
  }

  /** An event from the stream; false when it is not this view's. @param {SupEvent} event */
  add (event) {
    if (!this.accepts(event)) return false
    if (this.early !== null) {
      if (this.early.push(event) > EVENTS_VIEW_EVENTS) this.early.shift()
    } else if (event.seq > this.last) {
      this.last = event.seq
      this.pager.push(event)
    }
    return true
  }

  /** The history (events.list), then what the stream brought meanwhile. @param {SupEvent[]} events oldest first */
  load (events) {
    const all = [...events, ...(this.early ?? [])].filter((e) => this.accepts(e)).sort((a, b) => a.seq - b.seq)
    this.early = null
    /** @type {SupEvent[]} */
    const unique = []
    for (const e of all) {
      if (e.seq <= this.last) continue
      this.last = e.seq
      unique.push(e)
    }
    this.pager.reset(unique)
  }

  /**
   * Apps in the scope whose workers are down: the last exit, and when the next restart comes.
   * @param {import('./model.js').WorkerView[]} workers
   * @param {number} now
   */
  notes (workers, now) {
    return restartNotes(workers.filter((w) => this.scope.kind === 'all' || (w.name === this.scope.name && sameHost(this.scope, w))), now)
  }
}

/**
 * The page: the restart notes, the events, the status line (the title is the page's label).
 * @param {EventsView} view
 * @param {import('./model.js').WorkerView[]} workers
 * @param {number} now
 * @param {number} width
 * @param {number} height
 * @param {import('./render.js').Style} style
 * @returns {string}
 */
export function renderEventsView (view, workers, now, width, height, style) {
  const { pager } = view
  // At most a third of the page for the notes: the events are what the view is for.
  const notes = view.notes(workers, now).slice(0, Math.max(1, Math.floor(height / 3)))
  const noteRows = notes.map(({ name, loop, text }) => tint(loop ? 'red' : 'yellow', loop ? 'crash loop' : 'restarting', style) + escapeTags(fit(`: ${name}: ${escapeControls(text)}`, width - 10).trimEnd()))
  if (noteRows.length > 0) noteRows.push('')
  pager.resize(width, height - 1 - noteRows.length)
  const body = view.early !== null ? ['loading...'] : pager.size === 0 ? ['no events yet'] : renderPage(pager, style)
  return renderScreen([...noteRows, ...body], pager, { width, height, counts: `${pager.size} events`, style })
}
