// @ts-check
// A worker as `sup ls` shows it (design §10): one row made from what the worker is (id,
// instance, revision, state), what the sampler last read of it, and what its app knows (the
// restore it came back from, the state of its log files). Rows are made here and only here.
import { isRunning } from '../worker/lifecycle.js'

/**
 * @typedef {import('../../ipc/methods.js').WorkerRow} WorkerRow
 *
 * @typedef {object} RowWorker what a row needs of the worker itself
 * @property {number} id
 * @property {number} instance
 * @property {{ config: Pick<import('../../ipc/app-config.js').AppConfig, 'name' | 'namespace' | 'exec_mode' | 'readiness'> & Partial<Pick<import('../../ipc/app-config.js').AppConfig, 'max_memory' | 'memory_high' | 'cpu_limit' | 'max_pids'>> }} revision
 * @property {import('../worker/lifecycle.js').WorkerState} state
 * @property {import('../node-runtime/resolve.js').Runtime | null} runtime
 *
 * @typedef {object} RowContext what a row needs from beside the worker
 * @property {Pick<import('../metrics/sampler.js').WorkerUsage, 'cpu' | 'memory'> & Partial<Pick<import('../metrics/sampler.js').WorkerUsage, 'cgroup'>>} usage its last sample
 * @property {{ from: string } | undefined} restored how its app came back from the dump, if it did
 * @property {import('../logs/sink.js').LogRowStatus} logStatus its log files' state
 * @property {number} now ms, on the clock of state.startedAt
 */

/**
 * @param {RowWorker} worker
 * @param {RowContext} context
 * @returns {WorkerRow}
 */
export function workerRow (worker, { usage, restored, logStatus, now }) {
  const { state, revision: { config }, runtime } = worker
  const running = isRunning(state)
  return {
    id: worker.id,
    name: config.name,
    namespace: config.namespace ?? 'default',
    instance: worker.instance,
    pid: state.pid,
    status: state.status,
    mode: config.exec_mode,
    restarts: state.restarts,
    uptime: running && state.startedAt !== null ? now - state.startedAt : 0,
    cpu: running ? usage.cpu : 0,
    memory: running ? usage.memory : 0,
    unstable_restarts: state.unstableRestarts,
    retry_at: state.retryAt,
    last_exit: state.lastExit,
    restored: restored?.from ?? null,
    ready: config.readiness ? state.probeReady : null,
    liveness_restarts: state.livenessRestarts,
    last_restart: state.lastRestart,
    runtime: runtime && { kind: runtime.kind, path: runtime.path, version: runtime.version, source: runtime.source },
    limits: { max_memory: config.max_memory ?? null, memory_high: config.memory_high ?? null, cpu_limit: config.cpu_limit ?? null, max_pids: config.max_pids ?? null },
    cgroup: running ? usage.cgroup ?? null : null,
    ...logStatus
  }
}
