// @ts-check
// The log view (key l) and the events view (key e) of `sup monit` as monit views
// (monit/views.js): each opens on the selection (an app, or a worker's logs), `a` switches
// to all apps and back, the pager keys scroll and search, Esc goes back to the list.
// What they keep lives only while they are open (a view's ring is dropped on close).
import { EVENTS_VIEW_EVENTS, EventsView, renderEventsView } from './events-view.js'
import { LOG_VIEW_LINES, LogView, renderLogView } from './log-view.js'
import { pagerActions, pagerBindings, typeSearch } from './pager-keys.js'

/** How often the events view redraws by itself, for its restart countdown. */
const COUNTDOWN_MS = 1000

/** A scope's host, with `sup monit --host` only. @param {string | null | undefined} host */
const onHost = (host) => host ? { host } : {}

/**
 * The log scope of the list's selection: a worker's own lines, an app's, or all apps'.
 * @param {import('./model.js').MonitModel} model
 * @returns {import('./log-view.js').LogScope}
 */
export function logScopeOf (model) {
  const sel = model.selection
  if (sel?.kind === 'worker') {
    const w = model.workers.get(sel.id)
    if (w) return { kind: 'worker', id: w.remote_id ?? w.id, name: w.name, instance: w.instance, ...onHost(w.host) }
  }
  const selected = sel?.kind === 'app' ? model.selected() : null
  return selected ? { kind: 'app', name: selected.app, ...onHost(selected.host) } : { kind: 'all' }
}

/**
 * The events scope of the selection: its app (a worker's too), or all apps.
 * @param {import('./model.js').MonitModel} model
 * @returns {import('./events-view.js').EventsScope}
 */
export function eventsScopeOf (model) {
  const selected = model.selected()
  return selected ? { kind: 'app', name: selected.app, ...onHost(selected.host) } : { kind: 'all' }
}

/**
 * What both views share: one pager-backed model at a time, filled by a request, switched
 * between the selection and all apps with `a`, typed into while a search is typed.
 * @template {LogView | EventsView} V
 * @param {import('./views.js').ViewContext} ctx
 * @param {{ name: string, scopeOf: () => V['scope'], make: (scope: any) => V, fetch: (view: V) => Promise<any[]> }} parts
 */
function pagerView (ctx, { name, scopeOf, make, fetch }) {
  /** @type {V | null} */
  let view = null
  /** @type {V['scope'] | null} the selection's scope, to come back to from all apps */
  let chosen = null
  /** @param {V['scope']} scope */
  const show = async (scope) => {
    const shown = make(scope)
    view = shown
    ctx.redraw()
    let items = []
    try {
      items = await fetch(shown)
    } catch (err) {
      ctx.say(`sup: ${/** @type {Error} */ (err).message}`)
    }
    // A view switched meanwhile does not take these.
    if (view === shown) shown.load(items)
    ctx.redraw()
  }
  return {
    get: () => view,
    keys: [
      ...pagerBindings(name),
      { keys: ['a'], action: `${name}.all`, hint: 'a all apps', help: 'all apps, or back to the selection' }
    ],
    actions: {
      ...pagerActions(name, () => view?.pager ?? null),
      [`${name}.all`]: () => show(view?.scope.kind === 'all' && chosen ? chosen : { kind: 'all' })
    },
    open: () => {
      chosen = scopeOf()
      return show(chosen)
    },
    close: () => { view = null },
    typing: () => view !== null && view.pager.input !== null,
    /** @param {string} key @param {string | undefined} ch */
    type: (key, ch) => { if (view) typeSearch(view.pager, key, ch) },
    label: () => view?.title() ?? name
  }
}

/**
 * @param {import('./views.js').ViewContext} ctx
 * @returns {import('./views.js').MonitView}
 */
export function createLogView (ctx) {
  const common = pagerView(ctx, {
    name: 'logs',
    scopeOf: () => logScopeOf(ctx.model),
    make: (scope) => new LogView(scope),
    fetch: (view) => ctx.request('logs.tail', { target: view.target(), lines: LOG_VIEW_LINES })
  })
  return {
    name: 'logs',
    title: 'log view',
    openKeys: ['l'],
    openHelp: 'full-screen logs of the selection (an app, or one worker)',
    hint: 'l logs',
    keys: [...common.keys, { keys: ['t'], action: 'logs.times', help: 'times on/off' }],
    actions: { ...common.actions, 'logs.times': () => common.get()?.toggleTimes() },
    render: (width, height) => {
      const view = common.get()
      return view ? renderLogView(view, width, height, ctx.style) : ''
    },
    open: common.open,
    close: common.close,
    typing: common.typing,
    type: common.type,
    label: common.label,
    onLog: (entry) => { common.get()?.add(entry) }
  }
}

/**
 * @param {import('./views.js').ViewContext} ctx
 * @returns {import('./views.js').MonitView}
 */
export function createEventsView (ctx) {
  const common = pagerView(ctx, {
    name: 'events',
    scopeOf: () => eventsScopeOf(ctx.model),
    make: (scope) => new EventsView(scope),
    fetch: async (view) => (await ctx.request('events.list', { target: view.target(), limit: EVENTS_VIEW_EVENTS })).events
  })
  /** @type {NodeJS.Timeout | null} */
  let ticker = null
  return {
    name: 'events',
    title: 'events view',
    openKeys: ['e'],
    openHelp: 'events of the selection\'s app: restarts and why, crash loops, kills, reloads',
    hint: 'e events',
    keys: common.keys,
    actions: common.actions,
    render: (width, height) => {
      const view = common.get()
      return view ? renderEventsView(view, [...ctx.model.workers.values()], Date.now(), width, height, ctx.style) : ''
    },
    open: () => {
      // The countdown to a crash-looping worker's next try moves on its own.
      ticker ??= setInterval(ctx.redraw, COUNTDOWN_MS).unref()
      return common.open()
    },
    close: () => {
      if (ticker) clearInterval(ticker)
      ticker = null
      common.close()
    },
    typing: common.typing,
    type: common.type,
    label: common.label,
    onEvent: (event) => { common.get()?.add(event) }
  }
}
