// @ts-check
// max_memory_restart, checked on every sample (design §3), against the whole process tree:
// PM2 polls every 30 s and charges only the main pid. A worker past its limit is replaced
// on the first sample that shows it. In cluster mode the replacement is graceful (its
// successor is ready before it is drained), so the worker stays online meanwhile: the
// guard remembers whom it is replacing and does not ask twice.
import { STATUS } from '../worker/lifecycle.js'

/**
 * @param {number | null} limit bytes (max_memory_restart)
 * @param {string} status
 * @param {number} memory bytes, the whole tree
 */
export function exceedsMemoryLimit (limit, status, memory) {
  return limit !== null && limit > 0 && status === STATUS.ONLINE && memory > limit
}

/**
 * Replace workers that the sampler finds over their app's limit.
 * @param {object} options
 * @param {import('node:events').EventEmitter} options.sampler emits 'sample' (worker)
 * @param {import('pino').Logger} options.logger
 * @param {(worker: import('../worker/worker.js').Worker) => Promise<unknown>} options.replace
 */
export function guardMemory ({ sampler, logger, replace }) {
  /** @type {Set<import('../worker/worker.js').Worker>} */
  const replacing = new Set()
  sampler.on('sample', (/** @type {import('../worker/worker.js').Worker} */ worker) => {
    const limit = worker.app.config.max_memory_restart
    const { memory, processes } = worker.usage
    if (replacing.has(worker) || !exceedsMemoryLimit(limit, worker.state.status, memory)) return
    const where = { app: worker.app.config.name, id: worker.id, instance: worker.instance }
    logger.warn({ ...where, memory, limit, processes }, 'worker over max_memory_restart; replacing it')
    replacing.add(worker)
    replace(worker)
      // A reload or scale already holding the app replaces this worker anyway.
      .catch((err) => logger.warn({ ...where, err }, 'could not replace the worker over max_memory_restart'))
      .finally(() => replacing.delete(worker))
  })
}
