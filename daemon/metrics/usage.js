// @ts-check
// What the sampler knows of one worker's process (daemon/metrics/sampler.js), and what its
// agent last reported; kept in the daemon's stores (app/worker-stores.js).

/**
 * @typedef {object} WorkerUsage the latest figures of one worker (all zero / null until sampled)
 * @property {number | null} time ms, when it was sampled
 * @property {number} cpu percent of one core, whole tree, over the last interval
 * @property {number} memory bytes, RSS of the whole tree
 * @property {number} cpu_seconds CPU time of the tree since the worker process started
 * @property {number} processes how many processes the tree had
 * @property {{ p50: number, p99: number, max: number } | null} loop_delay ms, from the agent
 * @property {{ used: number, total: number } | null} heap bytes, from the agent
 * @property {number | null} handles from the agent
 * @property {import('../cgroups/usage.js').CgroupFigures | null} cgroup the kernel's figures of its
 *   cgroup, where it has one (cpu, memory and processes above come from them then, not /proc)
 *
 * @typedef {import('../worker/agent-report.js').AgentReport & { at: number }} AgentSnapshot
 */

/** @returns {WorkerUsage} */
export function emptyUsage () {
  return { time: null, cpu: 0, memory: 0, cpu_seconds: 0, processes: 0, loop_delay: null, heap: null, handles: null, cgroup: null }
}
