// @ts-check
// What other parts of the daemon know of a worker, kept beside it instead of on it: the
// sampler's figures, the probes' verdicts. One writer each; the rows and `describe` read.
// Keyed by the worker itself, not its id: a reload hands an id from one worker to another.
import { emptyUsage } from '../metrics/usage.js'

/**
 * @template T
 */
export class WorkerStore {
  /** @param {() => T} empty what a worker has before anything was written for it */
  constructor (empty) {
    this.empty = empty
    /** @type {WeakMap<object, T>} */
    this.values = new WeakMap()
  }

  /**
   * @param {object} worker
   * @returns {T}
   */
  get (worker) {
    return this.values.get(worker) ?? this.empty()
  }

  /**
   * @param {object} worker
   * @param {T} value
   */
  set (worker, value) {
    this.values.set(worker, value)
  }

  /**
   * Back to empty (a new process: the figures of the last one are not its).
   * @param {object} worker
   */
  clear (worker) {
    this.values.delete(worker)
  }
}

/**
 * @typedef {object} WorkerStores the daemon's stores of what is known of each worker
 * @property {WorkerStore<import('../metrics/usage.js').WorkerUsage>} usage the sampler's last
 *   figures of its current process (daemon/metrics/sampler.js)
 * @property {WorkerStore<import('../metrics/usage.js').AgentSnapshot | null>} agent the latest
 *   report of the agent in its current process (node workers)
 * @property {WorkerStore<import('../probes/worker-probes.js').WorkerProbes>} probes the last
 *   verdicts of its readiness and liveness probes (daemon/probes/worker-probes.js)
 * @property {WorkerStore<number | null>} gates the pid of the process its readiness gate holds
 *   closed (cluster mode), or null
 */

/** @returns {WorkerStores} */
export function createWorkerStores () {
  return {
    usage: new WorkerStore(emptyUsage),
    agent: new WorkerStore(() => null),
    probes: new WorkerStore(() => ({ readiness: null, liveness: null })),
    gates: new WorkerStore(() => null)
  }
}
