// @ts-check
// What `sup monit` shows, without any terminal: the workers and their latest figures, the
// app tree with its expanded apps and the selection, a short history per worker for the
// charts, and the recent log lines. Fed by the daemon's stream; read by monit/view.js.

/** Points of history kept per worker (the charts are never wider than this). */
export const HISTORY_POINTS = 300
/** Log lines kept per app for the tail pane (per app, so a chatty app does not crowd out the others). */
export const LOG_LINES = 300
/** An app whose workers crashed this many times within CRASH_WINDOW_MS is shown as crashing. */
export const CRASH_COUNT = 2
export const CRASH_WINDOW_MS = 60_000
/** The columns the list sorts by; each starts in the order a person looks for first. */
export const SORTS = /** @type {const} */ ({
  cpu: { label: 'cpu', descending: true },
  memory: { label: 'mem', descending: true },
  restarts: { label: 'rst', descending: true },
  uptime: { label: 'up', descending: true },
  name: { label: 'name', descending: false }
})
/** The events that are a worker going down on its own (docs/events.md). */
const CRASH_KINDS = new Set(['restarting', 'crash-loop', 'spawn-error', 'liveness', 'killed'])

/**
 * @typedef {import('../../ipc/methods.js').WorkerRow & {
 *   host?: string, remote_id?: number, time?: number | null, cpu_seconds?: number, processes?: number,
 *   loop_delay?: { p50: number, p99: number, max: number } | null,
 *   heap?: { used: number, total: number } | null, handles?: number | null }} WorkerView
 * @typedef {import('../../ipc/events.js').LogEvent} LogEntry
 * @typedef {{ cpu: number[], memory: number[], loop_p99: Array<number | null>, heap_used: Array<number | null> }} Series
 * @typedef {{ count: number, last: import('../../ipc/events.js').SupEvent }} Crashing an app that keeps going down:
 *   its crashes within CRASH_WINDOW_MS and the newest, whose message says why
 * @typedef {{ kind: 'app', name: string, key: string, host: string | null, workers: WorkerView[], expanded: boolean, crashing?: Crashing | null }
 *   | { kind: 'worker', worker: WorkerView, last: boolean }} Line
 * @typedef {keyof typeof SORTS} SortKey
 */

/**
 * What apps are grouped, selected and expanded by: the name, or host and name for the rows
 * of another machine (`host` set, `sup monit --host`): api on web1 is not api on web2.
 * @param {string | null | undefined} host
 * @param {string} name
 */
export function appKey (host, name) {
  return host ? `${host}\u0000${name}` : name
}

export class MonitModel {
  constructor () {
    /** @type {Map<number, WorkerView>} */
    this.workers = new Map()
    /** @type {Map<number, Series>} */
    this.history = new Map()
    /** @type {Map<string, LogEntry[]>} app → its recent lines, oldest first */
    this.logs = new Map()
    /** @type {Set<string>} */
    this.expanded = new Set()
    /** @type {{ kind: 'app', name: string } | { kind: 'worker', id: number } | null} name: the app's key (appKey) */
    this.selection = null
    /**
     * Whether the operator has moved the selection. Until then it is the top line, whatever came
     * first: monit subscribes before it lists, and a crash-looping app's state that arrives in
     * between must not leave that app selected under a list that starts with another (CI, Node 24:
     * `+` asked to scale the third app).
     */
    this.chosen = false
    /** @type {Map<string, import('../../ipc/events.js').SupEvent[]>} app → its recent crashes, oldest first */
    this.crashes = new Map()
    /** The clock crashes are counted against (tests set it). */
    this.now = Date.now
    /** Apps shown: those whose name, namespace or a worker's status contains this (any case). */
    this.filter = ''
    /** @type {Set<number>} workers the daemon said are deleted (a late state must not bring them back) */
    this.deleted = new Set()
    /** @type {Map<string, number | null>} app → its max_memory_restart (bytes, per worker), null: none */
    this.limits = new Map()
    /** @type {{ key: SortKey | null, reverse: boolean }} null: the order the apps were started in */
    this.sort = { key: null, reverse: false }
  }

  /** @param {string} text */
  setFilter (text) {
    this.filter = text
    this.keepSelection()
  }

  /**
   * Sort by a column; the same column again reverses the order.
   * @param {SortKey} key
   */
  setSort (key) {
    this.sort = this.sort.key === key ? { key, reverse: !this.sort.reverse } : { key, reverse: false }
    this.keepSelection()
  }

  /** Whether a sort column is descending now (the header's arrow). */
  descending () {
    const { key, reverse } = this.sort
    return key !== null && SORTS[key].descending !== reverse
  }

  /**
   * A supervisor decision (the `event` topic, or events.list at start): crashes are counted,
   * so an app that dies every few seconds is not a green "online" with a growing count.
   * @param {import('../../ipc/events.js').SupEvent} event
   */
  applyEvent (event) {
    if (!CRASH_KINDS.has(event.kind)) return
    const key = appKey(/** @type {{ host?: string }} */ (event).host, event.app)
    const list = this.crashes.get(key) ?? []
    if (list.some((e) => e.seq === event.seq)) return
    list.push(event)
    const since = this.now() - CRASH_WINDOW_MS
    this.crashes.set(key, list.filter((e) => e.at >= since))
  }

  /**
   * Whether an app is crash-looping now: errored workers, or CRASH_COUNT crashes within the window.
   * @param {string} app its key (appKey)
   * @param {WorkerView[]} workers
   * @returns {Crashing | null}
   */
  crashing (app, workers) {
    const since = this.now() - CRASH_WINDOW_MS
    const recent = (this.crashes.get(app) ?? []).filter((e) => e.at >= since)
    const errored = workers.some((w) => w.status === 'errored')
    if (recent.length === 0 || (recent.length < CRASH_COUNT && !errored)) return null
    return { count: recent.length, last: recent[recent.length - 1] }
  }

  /** @param {WorkerView[]} rows the whole list (app.list), replacing what we had */
  setWorkers (rows) {
    this.workers = new Map(rows.map((r) => [r.id, r]))
    this.deleted.clear()
    for (const id of this.history.keys()) if (!this.workers.has(id)) this.history.delete(id)
    this.keepSelection()
  }

  /** @param {import('../../ipc/events.js').AppStateEvent} row */
  applyState (row) {
    if (row.status === 'deleted') {
      this.workers.delete(row.id)
      this.history.delete(row.id)
      this.deleted.add(row.id)
      // Bounded: ids only grow, so the oldest are long past any late event.
      if (this.deleted.size > 1000) this.deleted.delete(this.deleted.values().next().value ?? -1)
    } else if (this.deleted.has(row.id) && row.status !== 'starting') {
      // The daemon sends a deleted worker's last `stopped` after its `deleted`: not a new one.
      return
    } else {
      this.deleted.delete(row.id)
      this.workers.set(row.id, { ...this.workers.get(row.id), ...(/** @type {WorkerView} */ (row)) })
    }
    this.keepSelection()
  }

  /** @param {import('../../ipc/events.js').MetricsEvent} sample */
  applyMetrics (sample) {
    // Workers come from app.list and app.state; a sample of one just deleted (a sampling pass
    // in flight, a scale-down's retired worker) must not bring it back as a ghost.
    const known = this.workers.get(sample.id)
    if (!known) return
    this.workers.set(sample.id, { ...known, ...sample })
    const series = this.seriesOf(sample.id)
    series.cpu.push(sample.cpu)
    series.memory.push(sample.memory)
    series.loop_p99.push(sample.loop_delay?.p99 ?? null)
    series.heap_used.push(sample.heap?.used ?? null)
    if (series.cpu.length > HISTORY_POINTS) {
      for (const column of Object.values(series)) column.splice(0, column.length - HISTORY_POINTS)
    }
  }

  /**
   * @param {Array<{ id: number, cpu: Array<number | null>, memory: Array<number | null>, loop_p99: Array<number | null>, heap_used: Array<number | null> }>} histories
   */
  setHistory (histories) {
    for (const h of histories) {
      this.history.set(h.id, {
        cpu: h.cpu.map((v) => v ?? 0).slice(-HISTORY_POINTS),
        memory: h.memory.map((v) => v ?? 0).slice(-HISTORY_POINTS),
        loop_p99: h.loop_p99.slice(-HISTORY_POINTS),
        heap_used: h.heap_used.slice(-HISTORY_POINTS)
      })
    }
  }

  /** @param {LogEntry} entry */
  applyLog (entry) {
    const key = appKey(/** @type {{ host?: string }} */ (entry).host, entry.app)
    let lines = this.logs.get(key)
    if (!lines) this.logs.set(key, (lines = []))
    lines.push(entry)
    // Trimmed in batches, not on every line.
    if (lines.length > LOG_LINES * 2) lines.splice(0, lines.length - LOG_LINES)
  }

  /**
   * An app's past lines (logs.tail), merged with the lines the stream brought meanwhile.
   * @param {string} app its key (appKey)
   * @param {LogEntry[]} entries oldest first
   */
  setLogs (app, entries) {
    const last = entries.length > 0 ? entries[entries.length - 1].time : -Infinity
    const newer = (this.logs.get(app) ?? []).filter((e) => e.time > last)
    this.logs.set(app, [...entries, ...newer].slice(-LOG_LINES))
  }

  /** @param {number} id */
  seriesOf (id) {
    let series = this.history.get(id)
    if (!series) {
      series = { cpu: [], memory: [], loop_p99: [], heap_used: [] }
      this.history.set(id, series)
    }
    return series
  }

  /** Apps by key (appKey) in the order of their first worker id, each with its workers by id. */
  apps () {
    /** @type {Map<string, WorkerView[]>} */
    const apps = new Map()
    for (const w of [...this.workers.values()].sort((a, b) => a.id - b.id)) {
      const key = appKey(w.host, w.name)
      const list = apps.get(key)
      if (list) list.push(w)
      else apps.set(key, [w])
    }
    return apps
  }

  /**
   * Each host's totals, in the order its apps first come (none without `sup monit --host`).
   * @returns {Map<string, { apps: number, workers: number, online: number, cpu: number, memory: number }>}
   */
  hostTotals () {
    /** @type {Map<string, { apps: number, workers: number, online: number, cpu: number, memory: number }>} */
    const totals = new Map()
    for (const workers of this.apps().values()) {
      const host = workers[0].host
      if (!host) continue
      const t = totals.get(host) ?? { apps: 0, workers: 0, online: 0, cpu: 0, memory: 0 }
      t.apps++
      for (const w of workers) {
        t.workers++
        if (w.status === 'online') t.online++
        t.cpu += w.cpu
        t.memory += w.memory
      }
      totals.set(host, t)
    }
    return totals
  }

  /** The rows of the left pane, top to bottom: filtered, then sorted. @returns {Line[]} */
  lines () {
    const needle = this.filter.toLowerCase()
    const apps = []
    for (const [key, workers] of this.apps()) {
      const { name, host = null } = workers[0]
      const crashing = this.crashing(key, workers)
      if (needle && !matches(needle, [name, host ?? ''], workers, crashing)) continue
      apps.push({ name, key, host, workers, crashing })
    }
    const { key } = this.sort
    if (key !== null) {
      const sign = this.descending() ? -1 : 1
      // Stable: equal apps keep the start order.
      apps.sort((a, b) => sign * compare(sortValue(key, a.name, a.workers), sortValue(key, b.name, b.workers)))
    }
    /** @type {Line[]} */
    const lines = []
    for (const { name, key, host, workers, crashing } of apps) {
      const expanded = this.expanded.has(key)
      lines.push({ kind: 'app', name, key, host, workers, expanded, crashing })
      if (expanded) workers.forEach((worker, i) => lines.push({ kind: 'worker', worker, last: i === workers.length - 1 }))
    }
    return lines
  }

  /** Index of the selected line (0 when nothing is selected). */
  selectedIndex () {
    const lines = this.lines()
    const sel = this.selection
    const i = lines.findIndex((l) => sel !== null && (sel.kind === 'app' ? l.kind === 'app' && l.key === sel.name : l.kind === 'worker' && l.worker.id === sel.id))
    return Math.max(0, i)
  }

  /** @param {number} delta lines down (negative: up); past either end stops there */
  move (delta) {
    const lines = this.lines()
    if (lines.length === 0) return
    const i = Math.min(lines.length - 1, Math.max(0, this.selectedIndex() + delta))
    this.select(lines[i])
    this.chosen = true
  }

  /** @param {'first' | 'last'} end */
  moveTo (end) {
    this.move(end === 'first' ? -Infinity : Infinity)
  }

  /** Enter: expand or collapse the selected app (or the app of the selected worker). */
  toggle () {
    const line = this.lines()[this.selectedIndex()]
    if (!line) return
    const key = line.kind === 'app' ? line.key : appKey(line.worker.host, line.worker.name)
    if (this.expanded.has(key)) this.expanded.delete(key)
    else this.expanded.add(key)
    this.selection = { kind: 'app', name: key }
    this.chosen = true
  }

  /** @param {Line} line */
  select (line) {
    this.selection = line.kind === 'app' ? { kind: 'app', name: line.key } : { kind: 'worker', id: line.worker.id }
  }

  /** After workers come and go, keep a selection that still exists (the top line until the operator moves). */
  keepSelection () {
    const lines = this.lines()
    if (!this.chosen) {
      this.selection = null
      if (lines.length > 0) this.select(lines[0])
      return
    }
    const sel = this.selection
    const exists = sel !== null && lines.some((l) => sel.kind === 'app' ? l.kind === 'app' && l.key === sel.name : l.kind === 'worker' && l.worker.id === sel.id)
    if (exists) return
    if (sel?.kind === 'worker') {
      // A deleted or collapsed worker: fall back to its app, if that is still there.
      const app = lines.find((l) => l.kind === 'app' && [...this.workers.values()].some((w) => appKey(w.host, w.name) === l.key && w.id === sel.id))
      if (app) return this.select(app)
    }
    if (lines.length === 0) this.selection = null
    else this.select(lines[0])
  }

  /**
   * What the selection names, for the right pane and for actions.
   * @returns {{ label: string, target: string, app: string, host: string | null, size: number, workers: WorkerView[], crashing: Crashing | null, limit: number | null } | null}
   *   app: the app of the selection; host: its host (`sup monit --host`), else null; size: how many workers that app has; limit: the memory
   *   the workers shown may use (max_memory_restart each), null when none or not known yet
   */
  selected () {
    const sel = this.selection
    if (!sel) return null
    if (sel.kind === 'app') {
      const workers = this.apps().get(sel.name) ?? []
      const { name = sel.name, host = null } = workers[0] ?? {}
      return { label: host ? `${host} ${name}` : name, target: name, app: name, host, size: workers.length, workers, crashing: this.crashing(sel.name, workers), limit: this.limitOf(sel.name, workers.length) }
    }
    const worker = this.workers.get(sel.id)
    if (!worker) return null
    const key = appKey(worker.host, worker.name)
    const size = this.apps().get(key)?.length ?? 1
    const label = `${worker.host ? `${worker.host} ` : ''}${worker.name}[${worker.instance}] #${worker.id}`
    return { label, target: String(worker.remote_id ?? worker.id), app: worker.name, host: worker.host ?? null, size, workers: [worker], crashing: this.crashing(key, [worker]), limit: this.limitOf(key, 1) }
  }

  /** @param {string} app its key (appKey) @param {number} workers */
  limitOf (app, workers) {
    const each = this.limits.get(app)
    return typeof each === 'number' && each > 0 ? each * workers : null
  }

  /**
   * The selection's history: one worker's, or an app's workers summed point by point
   * (aligned on the newest sample: the daemon samples every worker in the same pass).
   * @returns {Series}
   */
  selectedSeries () {
    const workers = this.selected()?.workers ?? []
    const all = workers.map((w) => this.history.get(w.id)).filter((s) => s !== undefined)
    const length = Math.max(0, ...all.map((s) => s.cpu.length))
    /** @type {Series} */
    const out = { cpu: [], memory: [], loop_p99: [], heap_used: [] }
    for (let i = 0; i < length; i++) {
      const at = (/** @type {Array<number | null>} */ column) => column[column.length - length + i]
      out.cpu.push(sum(all.map((s) => at(s.cpu) ?? 0)))
      out.memory.push(sum(all.map((s) => at(s.memory) ?? 0)))
      const loops = all.map((s) => at(s.loop_p99)).filter((v) => typeof v === 'number')
      out.loop_p99.push(loops.length > 0 ? Math.max(...loops) : null)
      const heaps = all.map((s) => at(s.heap_used)).filter((v) => typeof v === 'number')
      out.heap_used.push(heaps.length > 0 ? sum(heaps) : null)
    }
    return out
  }

  /**
   * The newest log lines of the selection, oldest first.
   * @param {number} count
   */
  selectedLogs (count) {
    const sel = this.selection
    if (!sel) return []
    const worker = sel.kind === 'worker' ? this.workers.get(sel.id) : null
    const key = sel.kind === 'app' ? sel.name : worker ? appKey(worker.host, worker.name) : ''
    const lines = this.logs.get(key) ?? []
    const out = []
    for (let i = lines.length - 1; i >= 0 && out.length < count; i--) {
      if (sel.kind === 'app' || lines[i].id === sel.id) out.push(lines[i])
    }
    return out.reverse()
  }
}

/**
 * @param {string} needle lower case
 * @param {string[]} names the app's name and its host
 * @param {WorkerView[]} workers
 * @param {Crashing | null} crashing
 */
function matches (needle, names, workers, crashing) {
  if (names.some((n) => n.toLowerCase().includes(needle))) return true
  if (crashing && 'crashing'.includes(needle)) return true
  return workers.some((w) => (w.namespace ?? '').toLowerCase().includes(needle) || w.status.includes(needle))
}

/**
 * @param {SortKey} key
 * @param {string} name
 * @param {WorkerView[]} workers
 * @returns {number | string}
 */
function sortValue (key, name, workers) {
  if (key === 'name') return name
  if (key === 'uptime') return Math.max(0, ...workers.map((w) => w.uptime))
  return sum(workers.map((w) => w[key] ?? 0))
}

/** @param {number | string} a @param {number | string} b */
function compare (a, b) {
  if (typeof a === 'string' && typeof b === 'string') return a.localeCompare(b)
  return Number(a) - Number(b)
}

/** @param {number[]} values */
function sum (values) {
  let total = 0
  for (const v of values) total += v
  return total
}
