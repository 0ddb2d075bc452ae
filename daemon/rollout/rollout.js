// @ts-check
// Carries out a rolling replacement: the decisions are step.js's, a step function of
// (state, event, now); this file watches the workers, feeds what it sees to the step, carries
// out its effects (start, gate, renumber, stop, shut-down, report) and waits for the next change or
// deadline.
import { EventEmitter } from 'node:events'
import { STATUS } from '../worker/lifecycle.js'
import { tolerateTimeout, until, withDeadline } from '../until.js'
import { initialState, resultOf, step } from './step.js'
import { routesConnections } from '../balance/router.js'

/** How long to wait with nothing to wake for (the step always has a deadline while it waits). */
const IDLE_WAKE = 60_000

/**
 * @typedef {import('../worker/worker.js').Worker} Worker
 * @typedef {import('../worker/revision.js').Revision} Revision
 * @typedef {{ config: import('../../ipc/app-config.js').AppConfig, sockets?: import('../sockets/held-sockets.js').HeldSockets | null }} Serving
 *   what decides how workers can be replaced: their settings and the sockets the daemon holds
 * @typedef {import('./step.js').WorkerRef} WorkerRef
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
  /** @type {Map<string, Worker>} the workers of the rollout, by the step's keys */
  const workers = new Map()
  // Every change of a worker this rollout watches, in one place; `changed` keeps one that
  // comes while the step runs, so the next wait does not miss it.
  const changes = new EventEmitter()
  let changed = false
  const wake = () => {
    changed = true
    changes.emit('change')
  }
  const watch = (/** @type {string} */ key, /** @type {Worker} */ w) => {
    workers.set(key, w)
    w.on('change', wake)
    w.on('remove', wake)
  }
  old.forEach((w, i) => watch(`o${i}`, w))

  let state = initialState({
    config,
    instances,
    limits,
    // An app whose workers listen is ready when the new one listens too; one that never
    // listens (a queue consumer) is ready once online (min_uptime).
    expectListen: [...old, ...app.workers].some((w) => w.state.listening),
    // Gated while not ready: where the daemon hands out the connections (rr, or sup's router).
    gate: config.wait_ready && !config.readiness && config.exec_mode === 'cluster' && (app.effects.balance() === 'rr' || routesConnections(config))
  }, old.map((w, i) => ({ key: `o${i}`, id: w.id, instance: w.instance, drainable: canDrain(w), killTimeout: w.config.kill_timeout })))

  /** @param {import('./step.js').RollEvent} event */
  const feed = (event) => {
    const next = step(state, event, now())
    state = next.state
    for (const effect of next.effects) {
      const answer = perform(effect)
      // A start is answered at once, before the step's next effect.
      if (answer) feed(answer)
    }
  }

  /**
   * @param {import('./step.js').RollEffect} effect
   * @returns {import('./step.js').RollEvent | null}
   */
  const perform = (effect) => {
    if (effect.type === 'report') {
      report(effect.progress)
      return null
    }
    if (effect.type === 'start') return startWorker(effect)
    const worker = /** @type {Worker} */ (workers.get(effect.key))
    if (effect.type === 'open') worker.tellAgent('open')
    else if (effect.type === 'renumber') worker.renumber(effect.id)
    else if (effect.type === 'shut-down') worker.dispatch({ type: 'shut-down' })
    else worker.dispatch({ type: 'stop', afterStop: 'remove', drain: effect.drain })
    return null
  }

  /**
   * @param {Extract<import('./step.js').RollEffect, { type: 'start' }>} effect
   * @returns {import('./step.js').RollEvent}
   */
  const startWorker = ({ key, instance, id, renumber, restarts, gate }) => {
    const predecessor = renumber === null ? null : workers.get(renumber)
    const spareId = predecessor ? app.spareId() : null
    if (predecessor && spareId !== null) predecessor.renumber(spareId)
    const worker = app.addWorker(instance, runtime, id ?? undefined)
    if (restarts !== null) worker.dispatch({ type: 'carry-restarts', restarts })
    watch(key, worker)
    worker.dispatch({ type: 'start' })
    if (gate) worker.tellAgent('gate')
    return { type: 'started', key, id: worker.id, pid: worker.state.pid, spareId }
  }

  /** @returns {import('./step.js').RollEvent} */
  const observe = () => ({
    type: 'observe',
    views: Object.fromEntries([...workers].map(([key, w]) => [key, viewOf(w, app.stores.probes.get(w))])),
    online: app.workers.filter((w) => w.state.status === STATUS.ONLINE).length
  })

  try {
    while (true) {
      changed = false
      feed(observe())
      if (state.phase === 'done') return resultOf(state)
      // Until a worker changes, or the next deadline comes: then the step judges it.
      const ms = Math.max(0, (state.wakeAt ?? now() + IDLE_WAKE) - now())
      await withDeadline(ms, timers, 'a worker of the rollout to change', (signal) => until(changes, () => changed, signal))
        .catch(tolerateTimeout)
    }
  } finally {
    for (const w of workers.values()) {
      w.off('change', wake)
      w.off('remove', wake)
    }
  }
}

/**
 * What the step reads of a worker.
 * @param {Worker} worker
 * @param {import('../probes/worker-probes.js').WorkerProbes} probes its probes' last verdicts
 * @returns {import('./step.js').WorkerView}
 */
function viewOf (worker, probes) {
  const { status, pid, restarts, listening, ready, probeReady, lastExit, lingering } = worker.state
  return { status, pid, restarts, listening, ready, probeReady, lastExit, lingering, removed: worker.removed, probe: probes.readiness?.last ?? null }
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
