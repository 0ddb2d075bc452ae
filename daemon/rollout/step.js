// @ts-check
// A rolling replacement as one step function, (state, event, now) → (state, effects), as the
// worker lifecycle is (daemon/worker/lifecycle.js): start new workers, wait until each is ready
// (bounded by listen_timeout), retire old ones by draining them, and give up, keeping the old
// workers, when a new one fails; tell a retiring worker whose drain has left only long-lived
// connections (WebSocket, SSE) to shut down at once. What to start and retire next comes from
// planRollStep (plan.js). No timers, workers or I/O here: rollout.js watches the workers, feeds in what it
// sees and carries out the effects.
import { STATUS, isStoppingOrStopped } from '../worker/lifecycle.js'
import { planRollStep } from './plan.js'

/** Beyond its own timeouts, how long a retiring worker may take to be gone before we stop waiting. */
export const RETIRE_GRACE = 5000

/**
 * @typedef {{ id: number, instance: number, pid: number | null }} WorkerRef
 *
 * @typedef {Pick<import('../worker/lifecycle.js').WorkerState, 'status' | 'pid' | 'restarts' | 'listening' | 'ready' | 'probeReady' | 'lastExit' | 'lingering'> &
 *   { removed: boolean, probe: string | null }} WorkerView what the rollout reads of a worker: its
 *   lifecycle state, whether it has left its app, and its readiness probe's last verdict
 *
 * @typedef {Pick<import('../../ipc/app-config.js').AppConfig, 'name' | 'wait_ready' | 'readiness' | 'listen_timeout' | 'kill_timeout' | 'exec_mode'>} NewConfig
 *   the settings of the new workers, as far as the rollout goes
 *
 * @typedef {object} Setup what holds for the whole rollout
 * @property {NewConfig} config
 * @property {number[]} instances instance numbers the new workers take
 * @property {import('./plan.js').RollLimits} limits
 * @property {boolean} expectListen the app's workers listen: a new one is ready once it listens too
 * @property {boolean} gate a new worker started while others serve is gated until it is ready
 *   (wait_ready without a readiness probe, cluster mode, round-robin balancing)
 *
 * @typedef {object} OldSpec an old worker as the rollout begins
 * @property {string} key the runner's name for it, for the rollout's length
 * @property {number} id
 * @property {number} instance
 * @property {boolean} drainable it can be drained before it stops (rollout.js canDrain)
 * @property {number} killTimeout its kill_timeout
 *
 * @typedef {OldSpec & { stage: 'remaining' | 'retiring' | 'retired', ref: WorkerRef | null, since: number, goneBy: number, told: boolean }} OldWorker
 *   id: its id now, a spare one once its successor has taken its own; ref: what it was when
 *   its retirement began; goneBy: when we stop waiting for it to be gone; told: told to shut
 *   down before its drain ended (long-lived connections left)
 *
 * @typedef {object} NewWorker
 * @property {string} key `n<instance>`: a rollout starts one new worker per instance at most
 * @property {number} instance
 * @property {string | null} predecessor the old worker on its instance, whose id it takes
 * @property {number | null} id known once started
 * @property {number | null} pid
 * @property {number} deadline ready by then, or it has failed (listen_timeout)
 * @property {'starting' | 'ready' | 'failed' | 'stopping' | 'gone'} stage
 *   failed: to be stopped (an abort removes them one at a time); stopping: stopped, waited for
 * @property {boolean} gated
 * @property {number} goneBy
 *
 * @typedef {object} Pending what is left of a step until the runner has answered its starts
 * @property {string[]} starts keys of the new workers not yet acknowledged
 * @property {string[]} readyNow new workers found ready by this step
 * @property {string[]} retire old workers this step retires
 * @property {'done' | 'stuck' | null} end
 *
 * @typedef {object} RollState
 * @property {'rolling' | 'aborting' | 'finishing' | 'done'} phase rolling: each observation
 *   is judged and planned; aborting: the failed new workers are removed one by one;
 *   finishing: the retired old workers are waited for
 * @property {Setup} setup
 * @property {OldWorker[]} old
 * @property {NewWorker[]} fresh
 * @property {Record<string, WorkerView>} views the latest observation, by key
 * @property {number} online how many of the app's workers were online (this rollout's or not)
 * @property {Pending | null} pending
 * @property {string | null} reason why it was aborted
 * @property {WorkerRef[]} started new workers serving, once it ends
 * @property {WorkerRef[]} retired
 * @property {WorkerRef[]} failed
 * @property {number | null} wakeAt when to observe even if nothing changes (the next deadline)
 *
 * @typedef {{ type: 'observe', views: Record<string, WorkerView>, online: number }
 *   | { type: 'started', key: string, id: number, pid: number | null, spareId: number | null }} RollEvent
 *   observe: the workers as they are now (on any change of one, or at wakeAt); started: the
 *   answer to a start, with the ids taken (spareId: the predecessor's new one, if it moved)
 *
 * @typedef {{ type: 'start', key: string, instance: number, id: number | null, renumber: string | null, restarts: number | null, gate: boolean }
 *   | { type: 'open', key: string }
 *   | { type: 'renumber', key: string, id: number }
 *   | { type: 'stop', key: string, drain: boolean }
 *   | { type: 'shut-down', key: string }
 *   | { type: 'report', progress: Record<string, unknown> }} RollEffect
 *   start: add a worker on `instance` taking `id` (a new one if null), after moving the worker
 *   `renumber` to a spare id; carry `restarts` over; gate it; answer with 'started'.
 *   stop: stop it and remove it from its app. shut-down: a draining worker gets the stop
 *   ladder now (its signal or 'shutdown' message). report: progress, as it happens.
 *
 * @typedef {{ state: RollState, effects: RollEffect[] }} RollStep
 */

/**
 * @param {Setup} setup
 * @param {OldSpec[]} old
 * @returns {RollState}
 */
export function initialState (setup, old) {
  return {
    phase: 'rolling',
    setup,
    old: old.map((o) => ({ ...o, stage: 'remaining', ref: null, since: 0, goneBy: 0, told: false })),
    fresh: [],
    views: {},
    online: 0,
    pending: null,
    reason: null,
    started: [],
    retired: [],
    failed: [],
    wakeAt: null
  }
}

/**
 * @param {RollState} state
 * @param {RollEvent} event
 * @param {number} now ms
 * @returns {RollStep}
 */
export function step (state, event, now) {
  if (state.phase === 'done') return { state, effects: [] }
  /** @type {RollEffect[]} */
  const effects = []
  const next = event.type === 'observe' ? observe(state, event, now, effects) : started(state, event, now, effects)
  return { state: settle(next), effects }
}

/**
 * How it ended, once the phase is 'done'.
 * @param {RollState} state
 * @returns {{ outcome: 'done' | 'aborted', reason: string | null, started: WorkerRef[], retired: WorkerRef[], failed: WorkerRef[] }}
 */
export function resultOf ({ reason, started, retired, failed }) {
  return { outcome: reason === null ? 'done' : 'aborted', reason, started, retired, failed }
}

/**
 * @param {RollState} state
 * @param {Extract<RollEvent, { type: 'observe' }>} event
 * @param {number} now
 * @param {RollEffect[]} effects
 */
function observe (state, { views, online }, now, effects) {
  let s = { ...state, views, online, fresh: state.fresh.map((f) => f.pid === null && views[f.key] ? { ...f, pid: views[f.key].pid } : f) }
  s = noteGone(s, now, effects)
  s = tellLingering(s, effects)
  // A step waits for its starts to be answered (the runner answers each at once).
  if (s.pending) return s
  if (s.phase === 'rolling') return judge(s, now, effects)
  if (s.phase === 'aborting') return removeFailed(s, now, effects)
  return s
}

/**
 * @param {RollState} state
 * @param {Extract<RollEvent, { type: 'started' }>} event
 * @param {number} now
 * @param {RollEffect[]} effects
 */
function started (state, { key, id, pid, spareId }, now, effects) {
  const pending = state.pending
  const fresh = state.fresh.find((f) => f.key === key)
  if (!pending || !fresh || !pending.starts.includes(key)) return state
  let s = { ...state, fresh: update(state.fresh, key, { id, pid }) }
  if (fresh.predecessor !== null && spareId !== null) s = { ...s, old: update(s.old, fresh.predecessor, { id: spareId }) }
  effects.push({ type: 'report', progress: { phase: 'start', id, instance: fresh.instance, pid, total: s.setup.instances.length } })
  const starts = pending.starts.filter((k) => k !== key)
  if (starts.length > 0) return { ...s, pending: { ...pending, starts } }
  return carryOn({ ...s, pending: null }, pending, now, effects)
}

/**
 * Retired workers that are gone (or out of time), and failed ones that are.
 * @param {RollState} s
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function noteGone (s, now, effects) {
  const gone = (/** @type {{ key: string, goneBy: number }} */ w) => s.views[w.key]?.removed || now >= w.goneBy
  const leaving = s.old.filter((o) => o.stage === 'retiring' && gone(o))
  const failed = s.fresh.filter((f) => f.stage === 'stopping' && gone(f))
  if (leaving.length === 0 && failed.length === 0) return s
  for (const o of leaving) effects.push({ type: 'report', progress: { phase: 'retired', ...o.ref, ms: now - o.since } })
  return {
    ...s,
    old: s.old.map((o) => leaving.includes(o) ? { ...o, stage: 'retired' } : o),
    fresh: s.fresh.map((f) => failed.includes(f) ? { ...f, stage: 'gone' } : f),
    retired: [...s.retired, ...leaving.map((o) => /** @type {WorkerRef} */ (o.ref))]
  }
}

/**
 * A retiring worker whose drain has left only long-lived connections (WebSocket, Server-Sent
 * Events) is told to shut down at once, in any phase: those end only when the app closes them,
 * and its clients then reconnect to the workers that stay, which are ready (it was retired
 * because they are). kill_timeout is then the limit, not the wait.
 * @param {RollState} s
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function tellLingering (s, effects) {
  const lingering = (/** @type {OldWorker} */ o) => {
    const view = s.views[o.key]
    return o.stage === 'retiring' && !o.told && view !== undefined && !view.removed && view.status === STATUS.STOPPING && view.lingering > 0
  }
  const told = s.old.filter(lingering)
  if (told.length === 0) return s
  for (const o of told) {
    effects.push({ type: 'shut-down', key: o.key }, { type: 'report', progress: { phase: 'lingering', ...oldRef(s, o.key), connections: s.views[o.key].lingering } })
  }
  return { ...s, old: s.old.map((o) => told.includes(o) ? { ...o, told: true } : o) }
}

/**
 * Which new workers are ready now, whether one has failed, then what to start and retire.
 * @param {RollState} s
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function judge (s, now, effects) {
  const { config, expectListen, instances, limits } = s.setup
  /** @type {string[]} */
  const readyNow = []
  for (const f of s.fresh) {
    if (f.stage !== 'starting') continue
    if (isReady(s.views[f.key], config, expectListen)) {
      s = { ...s, fresh: update(s.fresh, f.key, { stage: 'ready' }) }
      if (f.gated) effects.push({ type: 'open', key: f.key })
      readyNow.push(f.key)
      continue
    }
    const reason = whyFailed(f, s.views[f.key], now, config)
    if (reason !== null) return abort(s, reason, now, effects)
  }
  const remaining = s.old.filter((o) => o.stage === 'remaining')
  const plan = planRollStep({
    old: remaining.map((o) => ({ id: o.id, instance: o.instance, serving: s.views[o.key]?.status === STATUS.ONLINE })),
    instances,
    ready: s.fresh.filter((f) => f.stage === 'ready').map((f) => f.instance),
    starting: s.fresh.filter((f) => f.stage === 'starting').map((f) => f.instance)
  }, limits)
  const waiting = s.fresh.filter((f) => f.stage === 'starting').length + plan.start.length
  /** @type {Pending} */
  const pending = {
    starts: plan.start.map((instance) => `n${instance}`),
    readyNow,
    retire: remaining.filter((o) => plan.retire.includes(o.id)).map((o) => o.key),
    end: plan.done ? 'done' : plan.start.length === 0 && plan.retire.length === 0 && waiting === 0 ? 'stuck' : null
  }
  // Starts first: retiring the last old worker of an app first would delete the app.
  for (const instance of plan.start) s = start(s, instance, now, effects)
  // The rest waits for the starts' answers: a successor moves its predecessor to a spare id,
  // which the progress and the result then show.
  if (plan.start.length > 0) return { ...s, pending }
  return carryOn(s, pending, now, effects)
}

/**
 * As in PM2's reload, a new worker takes over the id of the old one on its instance (which
 * keeps a spare id until it is gone) and its restart count, plus one: what monitors key on.
 * @param {RollState} s
 * @param {number} instance
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function start (s, instance, now, effects) {
  const key = `n${instance}`
  // The last one on the instance, should there be two.
  const predecessor = [...s.old].reverse().find((o) => o.instance === instance)
  const view = predecessor && s.views[predecessor.key]
  // With wait_ready, a worker listens before it is ready; while others serve, it declines
  // connections (the primary hands them to another worker) until its 'ready'.
  // (A readiness probe gates by itself: daemon/probes/worker-probes.js.)
  const gate = s.setup.gate && s.online > 0
  effects.push({
    type: 'start',
    key,
    instance,
    id: predecessor?.id ?? null,
    renumber: predecessor && view && !view.removed ? predecessor.key : null,
    restarts: predecessor ? (view?.restarts ?? 0) + 1 : null,
    gate
  })
  /** @type {NewWorker} */
  const fresh = { key, instance, predecessor: predecessor?.key ?? null, id: null, pid: null, deadline: now + s.setup.config.listen_timeout, stage: 'starting', gated: gate, goneBy: 0 }
  return { ...s, fresh: [...s.fresh, fresh] }
}

/**
 * The second half of a step: report, retire, and end if the plan says so.
 * @param {RollState} s
 * @param {Pending} pending
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function carryOn (s, pending, now, effects) {
  reportSteps(s, pending, effects)
  for (const key of pending.retire) s = retire(s, key, now, effects)
  if (pending.end === 'done') return { ...s, phase: 'finishing', started: serving(s) }
  if (pending.end === 'stuck') return abort(s, 'the rollout cannot progress (check --surge and --max-unavailable)', now, effects)
  return s
}

/**
 * Drain it (when it is online and can be), then the stop ladder; it leaves its app once stopped.
 * @param {RollState} s
 * @param {string} key
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function retire (s, key, now, effects) {
  const old = /** @type {OldWorker} */ (s.old.find((o) => o.key === key))
  const view = s.views[key]
  const ref = oldRef(s, key)
  effects.push({ type: 'stop', key, drain: view?.status === STATUS.ONLINE && old.drainable })
  return { ...s, old: update(s.old, key, { stage: 'retiring', ref, since: now, goneBy: now + 2 * old.killTimeout + RETIRE_GRACE }) }
}

/**
 * A new worker failed (or the plan is stuck): the new workers not ready are removed, the old
 * workers not retired yet keep serving, and those already replaced stay replaced.
 * @param {RollState} s
 * @param {string} reason
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function abort (s, reason, now, effects) {
  const fresh = s.fresh.map((f) => f.stage === 'starting' ? { ...f, stage: /** @type {const} */ ('failed') } : f)
  return removeFailed({ ...s, phase: 'aborting', reason, fresh }, now, effects)
}

/**
 * Stop the next failed new worker once the one before it is gone; then finish.
 * @param {RollState} s
 * @param {number} now
 * @param {RollEffect[]} effects
 * @returns {RollState}
 */
function removeFailed (s, now, effects) {
  if (s.fresh.some((f) => f.stage === 'stopping')) return s
  const next = s.fresh.find((f) => f.stage === 'failed')
  if (!next) return { ...s, phase: 'finishing', started: serving(s) }
  const { config } = s.setup
  let id = next.id
  // The old worker still serving gets its id back.
  const predecessor = s.old.find((o) => o.key === next.predecessor)
  if (predecessor && !s.views[predecessor.key]?.removed && next.id !== null) {
    effects.push({ type: 'renumber', key: next.key, id: predecessor.id }, { type: 'renumber', key: predecessor.key, id: next.id })
    s = { ...s, old: update(s.old, predecessor.key, { id: next.id }) }
    id = predecessor.id
  }
  // Drained like an old worker: a failed one that listens (a gated wait_ready worker) may
  // have a connection hand-off in flight that a bare SIGINT would lose.
  effects.push({ type: 'stop', key: next.key, drain: config.exec_mode === 'cluster' })
  const removed = Boolean(s.views[next.key]?.removed)
  s = {
    ...s,
    fresh: update(s.fresh, next.key, { id, stage: removed ? 'gone' : 'stopping', goneBy: now + 2 * config.kill_timeout + RETIRE_GRACE }),
    failed: [...s.failed, { id: id ?? -1, instance: next.instance, pid: next.pid }]
  }
  return removed ? removeFailed(s, now, effects) : s
}

/**
 * Done once it has stopped rolling and no retired worker is still on its way out; and the
 * next deadline to wake up for.
 * @param {RollState} s
 * @returns {RollState}
 */
function settle (s) {
  if (s.phase === 'finishing' && !s.old.some((o) => o.stage === 'retiring')) return { ...s, phase: 'done', wakeAt: null }
  const deadlines = [
    ...s.phase === 'rolling' && !s.pending ? s.fresh.filter((f) => f.stage === 'starting').map((f) => f.deadline) : [],
    ...s.old.filter((o) => o.stage === 'retiring').map((o) => o.goneBy),
    ...s.fresh.filter((f) => f.stage === 'stopping').map((f) => f.goneBy)
  ]
  const wakeAt = deadlines.length > 0 ? Math.min(...deadlines) : null
  return wakeAt === s.wakeAt ? s : { ...s, wakeAt }
}

/**
 * Whether a new worker counts as ready.
 * @param {WorkerView | undefined} view
 * @param {Pick<NewConfig, 'wait_ready' | 'readiness'>} config
 * @param {boolean} expectListen
 */
export function isReady (view, { wait_ready: waitReady, readiness }, expectListen) {
  if (view?.status !== STATUS.ONLINE) return false
  // A readiness probe is the word on readiness: online came from it, and it must pass still.
  if (readiness) return view.probeReady && (!waitReady || view.ready)
  if (waitReady) return view.ready
  return !expectListen || view.listening
}

/**
 * Why a new worker counts as failed now, or null while it may still become ready.
 * @param {NewWorker} fresh
 * @param {WorkerView | undefined} view
 * @param {number} now
 * @param {NewConfig} config
 */
function whyFailed ({ id, instance, pid, deadline }, view, now, config) {
  const who = `new worker ${id} of ${config.name} (instance ${instance}${pid ? `, pid ${pid}` : ''})`
  if (view?.lastExit) {
    const how = view.lastExit.signal ? `signal ${view.lastExit.signal}` : `code ${view.lastExit.code}`
    return `${who} exited with ${how} before it was ready (sup logs ${config.name} --err --nostream shows why)`
  }
  if (!view || view.removed || isStoppingOrStopped(view)) return `${who} was stopped by another command`
  if (now >= deadline) {
    const what = config.readiness
      ? `passed its readiness probe${view.probe ? ` (last: ${view.probe})` : ''}`
      : config.wait_ready ? 'sent "ready"' : 'listened'
    return `${who} was not ready within listen_timeout (${config.listen_timeout} ms): it never ${what} (raise --listen-timeout if it needs longer)`
  }
  return null
}

/**
 * One progress line per step, as on the terminal: "worker 2/4 ready (pid 123) · retiring pid 98".
 * @param {RollState} s
 * @param {Pending} pending
 * @param {RollEffect[]} effects
 */
function reportSteps (s, { readyNow, retire }, effects) {
  const total = s.setup.instances.length
  let count = s.fresh.filter((f) => f.stage === 'ready').length - readyNow.length
  const retiring = retire.map((key) => oldRef(s, key))
  readyNow.forEach((key, i) => {
    count++
    const last = i === readyNow.length - 1
    effects.push({ type: 'report', progress: { phase: 'ready', ...refOf(s, key), ready: count, total, retiring: last ? retiring : [] } })
  })
  if (readyNow.length === 0 && retiring.length > 0) effects.push({ type: 'report', progress: { phase: 'retire', retiring } })
}

/** The new workers that are ready, as they are now. @param {RollState} s */
function serving (s) {
  return s.fresh.filter((f) => f.stage === 'ready').map((f) => refOf(s, f.key))
}

/** A new worker as it is now. @param {RollState} s @param {string} key @returns {WorkerRef} */
function refOf (s, key) {
  const f = /** @type {NewWorker} */ (s.fresh.find((w) => w.key === key))
  const view = s.views[key]
  return { id: f.id ?? -1, instance: f.instance, pid: view ? view.pid : f.pid }
}

/** An old worker as it is now. @param {RollState} s @param {string} key @returns {WorkerRef} */
function oldRef (s, key) {
  const o = /** @type {OldWorker} */ (s.old.find((w) => w.key === key))
  return { id: o.id, instance: o.instance, pid: s.views[key]?.pid ?? null }
}

/**
 * @template {{ key: string }} T
 * @param {T[]} list
 * @param {string} key
 * @param {Partial<T>} patch
 * @returns {T[]}
 */
function update (list, key, patch) {
  return list.map((w) => w.key === key ? { ...w, ...patch } : w)
}
