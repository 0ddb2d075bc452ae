// @ts-check
// The outside world as the daemon's orchestration touches it: processes, timers, the clock,
// the process tree and the cluster's balancing. Worker, rollout and reload take it passed in,
// so unit tests drive a rollout or the stop ladder with a fake process and a fake clock.
import cluster from 'node:cluster'
import { listDescendants, sendSignal, signalRecorded } from '../process-tree.js'
import { spawnWorker } from '../spawn-worker.js'
import { checkFor } from '../probes/checks.js'

/**
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 *
 * @typedef {object} ProcessTree how the stop ladder finds and signals a worker's processes
 * @property {(pid: number) => Promise<import('../process-tree.js').ProcInfo[]>} list the descendants of pid
 * @property {(pid: number, signal: NodeJS.Signals) => boolean} signal one pid (negative: its group)
 * @property {(recorded: import('../process-tree.js').ProcInfo[], signal: NodeJS.Signals) => Promise<number>} signalRecorded
 *   the recorded processes that are still the same ones; resolves to how many were signalled
 *
 * @typedef {object} Effects
 * @property {(config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>, sockets?: import('../sockets/held-sockets.js').HandOver | null) => import('../spawn-worker.js').SpawnedWorker} spawn
 * @property {Timers} timers
 * @property {() => number} now ms since the epoch
 * @property {() => import('../../ipc/balance.js').Balance} balance how cluster workers get
 *   their connections: 'rr', the primary hands each one out (and a gated worker is skipped)
 * @property {ProcessTree} tree
 * @property {typeof checkFor} check a probe's check, made from the daemon (http, tcp, exec)
 */

/** @type {Effects} */
export const REAL_EFFECTS = Object.freeze({
  spawn: spawnWorker,
  timers: Object.freeze({ setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => setTimeout(fn, ms), clearTimeout: (/** @type {any} */ timer) => clearTimeout(timer) }),
  now: () => Date.now(),
  // Read when needed: the daemon sets the policy at start-up (setBalance), before any fork.
  balance: () => cluster.schedulingPolicy === cluster.SCHED_RR ? 'rr' : 'os',
  check: checkFor,
  tree: Object.freeze({ list: (/** @type {number} */ pid) => listDescendants(pid), signal: sendSignal, signalRecorded })
})
