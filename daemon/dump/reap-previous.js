// @ts-check
// After a daemon died (kill -9, OOM), stop what it left running before its apps start again,
// so that no app runs twice and no orphan lingers. A process is only ever signalled when its
// pid AND its start time match what was recorded: a pid reused since is never touched.
//
// What may be left: fork-mode workers (their own process groups; they usually got SIGTERM
// from the kernel already, see worker/spawn.js), and processes that cluster workers started
// (cluster workers themselves exit when their channel to the dead primary closes; their
// descendants stay in the dead daemon's process group).
import { setTimeout as sleep } from 'node:timers/promises'
import { listDescendants, listMarkedByDaemon, listProcesses, readProcess, sendSignal } from '../worker/process-tree.js'

/** Stubborn survivors get at most this long (ms), whatever their kill_timeout says. */
const MAX_GRACE = 30_000
/** How long we wait for SIGKILLed processes to be gone. */
const KILL_WAIT = 5000
const POLL = 50

/**
 * @typedef {import('../worker/process-tree.js').ProcInfo} ProcInfo
 * @typedef {ReturnType<typeof import('./restore-plan.js').recordedWorkers>[number]} RecordedWorker
 */

/**
 * @param {{ workers: RecordedWorker[], daemon: import('./format.js').DumpDaemon, logger: import('pino').Logger }} options
 * @returns {Promise<{ stopped: number, killed: number }>} workers found still running, and
 *   processes that had to be SIGKILLed (workers and what they left)
 */
export async function reapPrevious ({ workers, daemon, logger }) {
  const procs = await listProcesses()
  const byPid = new Map(procs.map((p) => [p.pid, p]))
  const survivors = workers.filter((w) => isSame(byPid.get(w.pid), w.startTime))
  /** @type {Map<number, ProcInfo>} */
  const leftovers = new Map()
  for (const worker of survivors) {
    for (const p of await listDescendants(worker.pid, procs)) leftovers.set(p.pid, p)
  }
  for (const leader of [...workers.filter((w) => w.ownGroup), { pid: daemon.pid, startTime: daemon.start_time }]) {
    for (const p of groupMembers(procs, leader.pid, leader.startTime)) leftovers.set(p.pid, p)
  }
  // And what left every tree and group: a daemonised grandchild whose worker died with the
  // daemon, found by the token that daemon gave it (issue 19 item 14).
  if (daemon.start_time) for (const p of await listMarkedByDaemon(daemon.pid, daemon.start_time)) leftovers.set(p.pid, p)
  for (const w of survivors) leftovers.delete(w.pid)
  leftovers.delete(process.pid)
  if (survivors.length === 0 && leftovers.size === 0) return { stopped: 0, killed: 0 }

  // The stop ladder's first step, as the dead daemon would have done it.
  for (const w of survivors) {
    logger.warn({ app: w.app, instance: w.instance, workerPid: w.pid }, 'a worker of the previous daemon is still running; stopping it')
    sendSignal(w.pid, 'SIGINT')
  }
  const grace = Math.min(MAX_GRACE, Math.max(0, ...survivors.map((w) => w.killTimeout)))
  const stubborn = await waitGone(survivors.map((w) => ({ pid: w.pid, startTime: w.startTime })), grace)

  const toKill = [...stubborn, ...leftovers.values()]
  for (const p of stubborn) {
    if (workers.find((w) => w.pid === p.pid)?.ownGroup) sendSignal(-p.pid, 'SIGKILL')
  }
  let killed = 0
  for (const p of toKill) {
    if (isSame(await readProcess(p.pid), p.startTime) && sendSignal(p.pid, 'SIGKILL')) killed++
  }
  const left = await waitGone(toKill, KILL_WAIT)
  if (left.length > 0) logger.error({ pids: left.map((p) => p.pid) }, 'processes of the previous daemon survived SIGKILL')
  return { stopped: survivors.length, killed }
}

/**
 * Members of the process group `leader` led, when that group can only be the one we recorded:
 * the leader is the recorded process or gone (a pid that leads a live group is not handed out
 * again), and members started no earlier than it.
 * @param {ProcInfo[]} procs
 * @param {number} leaderPid
 * @param {string | null} leaderStart
 */
export function groupMembers (procs, leaderPid, leaderStart) {
  if (leaderStart === null) return []
  const leader = procs.find((p) => p.pid === leaderPid)
  if (leader && leader.startTime !== leaderStart) return []
  return procs.filter((p) => p.pgid === leaderPid && p.pid !== leaderPid && p.state !== 'Z' && startedSince(p.startTime, leaderStart))
}

/**
 * @param {string} time
 * @param {string} since
 */
function startedSince (time, since) {
  if (/^\d+$/.test(time) && /^\d+$/.test(since)) return Number(time) >= Number(since)
  return Date.parse(time) >= Date.parse(since)
}

/**
 * @param {ProcInfo | null | undefined} proc
 * @param {string} startTime
 */
function isSame (proc, startTime) {
  return proc != null && proc.startTime === startTime && proc.state !== 'Z'
}

/**
 * Wait until none of these processes runs (they are not our children: no exit event comes).
 * @param {Array<{ pid: number, startTime: string }>} recorded
 * @param {number} ms
 * @returns {Promise<Array<{ pid: number, startTime: string }>>} those still running at the deadline
 */
async function waitGone (recorded, ms) {
  const deadline = Date.now() + ms
  let alive = recorded
  while (true) {
    const checks = await Promise.all(alive.map(async (p) => isSame(await readProcess(p.pid), p.startTime)))
    alive = alive.filter((_, i) => checks[i])
    if (alive.length === 0 || Date.now() >= deadline) return alive
    await sleep(POLL)
  }
}
