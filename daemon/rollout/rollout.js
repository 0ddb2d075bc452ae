// @ts-check
// Carries out a rolling replacement: start new workers, wait until each is ready (bounded by
// listen_timeout), retire old ones by draining them, and give up, keeping the old workers,
// when a new one fails. What to do next comes from plan.js; this file does the waiting.
import { EventEmitter } from 'node:events'
import { STATUS, isStoppingOrStopped } from '../worker/lifecycle.js'
import { tolerateTimeout, until, withDeadline } from '../until.js'
import { planRollStep } from './plan.js'

/** Beyond its own timeouts, how long a retiring worker may take to be gone before we stop waiting. */
const RETIRE_GRACE = 5000

/**
 * @typedef {import('../worker/worker.js').Worker} Worker
 * @typedef {import('../worker/revision.js').Revision} Revision
 * @typedef {{ config: import('../../ipc/app-config.js').AppConfig, sockets?: import('../sockets/held-sockets.js').HeldSockets | null }} Serving
 *   what decides how workers can be replaced: their settings and the sockets the daemon holds
 * @typedef {{ id: number, instance: number, pid: number | null }} WorkerRef
 *
 * @typedef {Pick<import('../app/app.js').App, 'config' | 'workers' | 'addWorker' | 'spareId' | 'effects' | 'stores'>} RolloutHost
 *   what a rollout needs of its app: its config and workers, a way to add a worker, a spare id,
 *   the clock, timers and balancing, and what is known of its workers (their probes' verdicts)
 *
 * @typedef {object} RolloutOptions
 * @property {RolloutHost} app
 * @property {Worker[]} old workers to retire
 * @property {number[]} instances instance numbers the new workers take
 * @property {Revision} [runtime] config and environment of the new workers (default: the app's revision)
 * @property {import('./plan.js').RollLimits} limits
 * @property {(progress: Record<string, unknown>) => void} [report] progress, as it happens
 *
 * @typedef {object} RolloutResult
 * @property {'done' | 'aborted'} outcome
 * @property {string | null} reason why it was aborted
 * @property {WorkerRef[]} started new workers now serving
 * @property {WorkerRef[]} retired old workers gone
 * @property {WorkerRef[]} failed new workers removed when it was aborted
 *
 * @typedef {{ instance: number, pid: number | null, deadline: number, lastExit: unknown, ready: boolean, gated: boolean }} Fresh
 */

/**
 * Replace `old` by new workers on `instances`, never with fewer ready workers than
 * `limits.maxUnavailable` allows. Resolves once the retired workers are gone.
 * @param {RolloutOptions} options
 * @returns {Promise<RolloutResult>}
 */
export async function rollWorkers ({ app, old, instances, runtime, limits, report = () => {} }) {
  const { config } = runtime ?? app
  const { now, timers } = app.effects
  // An app whose workers listen is ready when the new one listens too; one that never
  // listens (a queue consumer) is ready once online (min_uptime).
  const expectListen = [...old, ...app.workers].some((w) => w.state.listening)
  /** @type {Map<Worker, Fresh>} */
  const fresh = new Map()
  let remaining = [...old]
  /** @type {Promise<void>[]} */
  const retiring = []
  /** @type {RolloutResult} */
  const result = { outcome: 'done', reason: null, started: [], retired: [], failed: [] }
  // Every change of a worker this rollout watches, in one place; `changed` keeps one that
  // comes while the loop is busy, so the next wait does not miss it.
  const changes = new EventEmitter()
  let changed = false
  const wake = () => {
    changed = true
    changes.emit('change')
  }
  /** @type {Worker[]} */
  const watched = []
  const watch = (/** @type {Worker} */ w) => {
    w.on('change', wake)
    watched.push(w)
  }
  old.forEach(watch)
  // As in PM2's reload, a new worker takes over the id of the old one on its instance (which
  // keeps a spare id until it is gone) and its restart count, plus one: what monitors key on.
  const predecessors = new Map(old.map((w) => [w.instance, w]))
  /** @type {Map<Worker, Worker>} new worker → the old one whose id it took */
  const successions = new Map()

  const start = (/** @type {number} */ instance) => {
    const predecessor = predecessors.get(instance)
    const id = predecessor?.id
    if (predecessor && !predecessor.removed) predecessor.renumber(app.spareId())
    const worker = app.addWorker(instance, runtime, id)
    if (predecessor) {
      worker.dispatch({ type: 'carry-restarts', restarts: predecessor.state.restarts + 1 })
      successions.set(worker, predecessor)
    }
    watch(worker)
    // With wait_ready, a worker listens before it is ready; while others serve, it declines
    // connections (the primary hands them to another worker) until its 'ready'.
    // (A readiness probe gates by itself: daemon/probes/worker-probes.js.)
    const gated = config.wait_ready && !config.readiness && config.exec_mode === 'cluster' && app.effects.balance() === 'rr' &&
      app.workers.some((w) => w !== worker && w.state.status === STATUS.ONLINE)
    worker.dispatch({ type: 'start' })
    if (gated) worker.tellAgent('gate')
    fresh.set(worker, { instance, pid: worker.state.pid, deadline: now() + config.listen_timeout, lastExit: worker.state.lastExit, ready: false, gated })
    report({ phase: 'start', id: worker.id, instance, pid: worker.state.pid, total: instances.length })
  }

  const retire = async (/** @type {Worker} */ worker) => {
    const ref = refOf(worker)
    const since = now()
    const gone = waitRemoved(worker, 2 * worker.config.kill_timeout + RETIRE_GRACE, timers)
    const drain = worker.state.status === STATUS.ONLINE && canDrain(worker)
    worker.dispatch({ type: 'stop', afterStop: 'remove', drain })
    await gone
    result.retired.push(ref)
    report({ phase: 'retired', ...ref, ms: now() - since })
  }

  try {
    while (true) {
      changed = false
      const at = now()
      /** @type {Worker[]} */
      const readyNow = []
      for (const [worker, info] of fresh) {
        if (info.ready) continue
        if (isReady(worker, config, expectListen)) {
          info.ready = true
          if (info.gated) worker.tellAgent('open')
          readyNow.push(worker)
          continue
        }
        result.reason = whyFailed(worker, info, at, config, app.stores.probes.get(worker))
        if (result.reason !== null) break
      }
      if (result.reason !== null) break

      const step = planRollStep({
        old: remaining.map((w) => ({ id: w.id, instance: w.instance, serving: w.state.status === STATUS.ONLINE })),
        instances,
        ready: [...fresh.values()].filter((f) => f.ready).map((f) => f.instance),
        starting: [...fresh.values()].filter((f) => !f.ready).map((f) => f.instance)
      }, limits)
      // Starts first: retiring the last old worker of an app first would delete the app.
      step.start.forEach(start)
      const leaving = remaining.filter((w) => step.retire.includes(w.id))
      remaining = remaining.filter((w) => !step.retire.includes(w.id))
      reportSteps(readyNow, leaving, fresh, instances.length, report)
      for (const worker of leaving) retiring.push(retire(worker))
      if (step.done) break
      const waiting = [...fresh.values()].filter((f) => !f.ready)
      if (step.start.length === 0 && step.retire.length === 0 && waiting.length === 0) {
        result.reason = 'the rollout cannot progress (check --surge and --max-unavailable)'
        break
      }
      const next = Math.min(...waiting.map((f) => f.deadline))
      // Until a worker changes, or the next new worker's deadline comes: then the loop judges it.
      await withDeadline(Math.max(0, Number.isFinite(next) ? next - at : 60_000), timers, 'a worker of the rollout to change', (signal) => until(changes, () => changed, signal))
        .catch(tolerateTimeout)
    }

    if (result.reason !== null) {
      result.outcome = 'aborted'
      const failed = [...fresh].filter(([, info]) => !info.ready).map(([w]) => w)
      for (const worker of failed) {
        // The old worker still serving gets its id back.
        const predecessor = successions.get(worker)
        if (predecessor && !predecessor.removed) {
          const id = worker.id
          worker.renumber(predecessor.id)
          predecessor.renumber(id)
        }
        result.failed.push({ id: worker.id, instance: worker.instance, pid: fresh.get(worker)?.pid ?? null })
        const gone = waitRemoved(worker, 2 * config.kill_timeout + RETIRE_GRACE, timers)
        // Drained like an old worker: a failed one that listens (a gated wait_ready worker)
        // may have a connection hand-off in flight that a bare SIGINT would lose.
        worker.dispatch({ type: 'stop', afterStop: 'remove', drain: config.exec_mode === 'cluster' })
        await gone
      }
    }
    for (const [worker, info] of fresh) if (info.ready) result.started.push(refOf(worker))
    await Promise.all(retiring)
    return result
  } finally {
    for (const w of watched) w.off('change', wake)
  }
}

/**
 * Whether old and new workers of an app can serve side by side, so that a reload rolls:
 * cluster mode (the daemon hands out the connections) or fork mode on sockets the daemon
 * holds (`listen`: every generation accepts from the same kernel queue).
 * @param {Serving} app
 */
export function canRoll ({ config, sockets }) {
  return config.exec_mode === 'cluster' || (sockets != null && config.listen.length > 0)
}

/**
 * Whether the agent can drain a worker before it stops: cluster workers, and node fork-mode
 * workers on held sockets. Others get the plain stop ladder: their servers close on SIGINT,
 * and what the kernel queued meanwhile waits on the held socket for the next generation.
 * @param {Serving} worker
 */
export function canDrain (worker) {
  return worker.config.exec_mode === 'cluster' || (canRoll(worker) && worker.config.interpreter === null)
}

/**
 * @param {Worker} worker
 * @param {Pick<import('../../ipc/app-config.js').AppConfig, 'wait_ready' | 'readiness'>} config the new workers'
 * @param {boolean} expectListen
 */
export function isReady (worker, { wait_ready: waitReady, readiness }, expectListen) {
  const s = worker.state
  if (s.status !== STATUS.ONLINE) return false
  // A readiness probe is the word on readiness: online came from it, and it must pass still.
  if (readiness) return s.probeReady && (!waitReady || s.ready)
  if (waitReady) return s.ready
  return !expectListen || s.listening
}

/**
 * Why a new worker counts as failed now, or null while it may still become ready.
 * @param {Worker} worker
 * @param {Fresh} info
 * @param {number} now
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {import('../probes/worker-probes.js').WorkerProbes} probes its probes' last verdicts
 */
function whyFailed (worker, info, now, config, probes) {
  info.pid ??= worker.state.pid
  const s = worker.state
  const who = `new worker ${worker.id} of ${config.name} (instance ${info.instance}${info.pid ? `, pid ${info.pid}` : ''})`
  if (s.lastExit !== info.lastExit && s.lastExit !== null) {
    const how = s.lastExit.signal ? `signal ${s.lastExit.signal}` : `code ${s.lastExit.code}`
    return `${who} exited with ${how} before it was ready (sup logs ${config.name} --err --nostream shows why)`
  }
  if (worker.removed || isStoppingOrStopped(s)) return `${who} was stopped by another command`
  if (now >= info.deadline) {
    const what = config.readiness
      ? `passed its readiness probe${probes.readiness?.last ? ` (last: ${probes.readiness.last})` : ''}`
      : config.wait_ready ? 'sent "ready"' : 'listened'
    return `${who} was not ready within listen_timeout (${config.listen_timeout} ms): it never ${what} (raise --listen-timeout if it needs longer)`
  }
  return null
}

/**
 * One progress line per step, as on the terminal: "worker 2/4 ready (pid 123) · retiring pid 98".
 * @param {Worker[]} readyNow
 * @param {Worker[]} leaving
 * @param {Map<Worker, Fresh>} fresh
 * @param {number} total new workers this rollout brings up
 * @param {(progress: Record<string, unknown>) => void} report
 */
function reportSteps (readyNow, leaving, fresh, total, report) {
  let count = [...fresh.values()].filter((f) => f.ready).length - readyNow.length
  const retiring = leaving.map(refOf)
  readyNow.forEach((worker, i) => {
    count++
    const last = i === readyNow.length - 1
    report({ phase: 'ready', ...refOf(worker), ready: count, total, retiring: last ? retiring : [] })
  })
  if (readyNow.length === 0 && retiring.length > 0) report({ phase: 'retire', retiring })
}

/** @param {Worker} worker @returns {WorkerRef} */
function refOf (worker) {
  return { id: worker.id, instance: worker.instance, pid: worker.state.pid }
}

/**
 * Resolves once the worker has left its app, or after `ms` (it then goes on stopping alone).
 * @param {Worker} worker
 * @param {number} ms
 * @param {import('../worker/effects.js').Timers} timers
 * @returns {Promise<void>}
 */
function waitRemoved (worker, ms, timers) {
  return withDeadline(ms, timers, `worker ${worker.id} to be gone`, (signal) => until(worker, () => worker.removed, signal, 'remove'))
    .catch(tolerateTimeout)
}
