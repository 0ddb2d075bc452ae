// @ts-check
// max_memory_restart, checked on every sample (design §3), against the whole process tree:
// PM2 polls every 30 s and charges only the main pid. A worker past its limit is named on the
// first sample that shows it, as a decision; the Supervisor carries it out (replaceOnce: a
// graceful replace in cluster mode, its successor ready before it is drained, so the worker
// stays online meanwhile and is not replaced twice at once).
import { EventEmitter } from 'node:events'
import { STATUS } from '../worker/lifecycle.js'

/**
 * @typedef {object} MemoryDecision replace a worker whose tree is over its app's limit
 * @property {'replace'} action
 * @property {import('../worker/worker.js').Worker} worker
 * @property {number} memory bytes, the whole tree
 * @property {number} limit bytes (max_memory_restart)
 * @property {number} processes in its tree
 */

/**
 * @param {number | null} limit bytes (max_memory_restart)
 * @param {string} status
 * @param {number} memory bytes, the whole tree
 */
export function exceedsMemoryLimit (limit, status, memory) {
  return limit !== null && limit > 0 && status === STATUS.ONLINE && memory > limit
}

/**
 * What the guard decides of one sample: a replace, or nothing.
 * @param {import('../worker/worker.js').Worker} worker
 * @param {import('./usage.js').WorkerUsage} usage its figures
 * @returns {MemoryDecision | null}
 */
export function decideMemory (worker, { memory, processes }) {
  const limit = worker.config.max_memory_restart
  if (limit === null || !exceedsMemoryLimit(limit, worker.state.status, memory)) return null
  return { action: 'replace', worker, memory, limit, processes }
}

/**
 * Watch the sampler's samples; emits 'decision' (MemoryDecision) for each worker found over
 * its app's limit.
 * @param {object} options
 * @param {import('node:events').EventEmitter} options.sampler emits 'sample' (worker)
 * @param {{ get: (worker: import('../worker/worker.js').Worker) => import('./usage.js').WorkerUsage }} options.usage
 * @returns {EventEmitter}
 */
export function guardMemory ({ sampler, usage }) {
  const decisions = new EventEmitter()
  sampler.on('sample', (/** @type {import('../worker/worker.js').Worker} */ worker) => {
    const decision = decideMemory(worker, usage.get(worker))
    if (decision) decisions.emit('decision', decision)
  })
  return decisions
}

/**
 * The event a replace for memory is recorded as (`sup events`).
 * @param {MemoryDecision} decision
 */
export function memoryEvent ({ worker, memory, limit }) {
  return { kind: 'memory-limit', level: 'warn', app: worker.config.name, id: worker.id, instance: worker.instance, message: `using ${mib(memory)} MiB, over max_memory_restart (${mib(limit)} MiB): replacing it`, data: { memory, limit } }
}

/** @param {number} bytes */
const mib = (bytes) => (bytes / 1048576).toFixed(1)

/**
 * Carry out the guard's decisions with `replace`, never twice at once for one worker (a
 * graceful replace leaves it online while its successor starts, and samples keep coming).
 * @param {(decision: MemoryDecision) => Promise<unknown>} replace
 * @param {import('pino').Logger} logger
 * @returns {(decision: MemoryDecision) => void}
 */
export function replaceOnce (replace, logger) {
  /** @type {Set<import('../worker/worker.js').Worker>} */
  const replacing = new Set()
  return (decision) => {
    const { worker, memory, limit, processes } = decision
    if (replacing.has(worker)) return
    const where = { app: worker.config.name, id: worker.id, instance: worker.instance }
    logger.warn({ ...where, memory, limit, processes }, 'worker over max_memory_restart; replacing it')
    replacing.add(worker)
    /** @type {Promise<unknown>} */
    let replaced
    try {
      replaced = replace(decision)
    } catch (err) {
      replaced = Promise.reject(err)
    }
    replaced
      // A reload or scale already holding the app replaces this worker anyway.
      .catch((err) => logger.warn({ ...where, err }, 'could not replace the worker over max_memory_restart'))
      .finally(() => replacing.delete(worker))
  }
}
