// @ts-check
// Find and signal a worker's whole process tree. Cluster workers cannot be put in a
// process group of their own (cluster.fork has no `detached`), so descendants are found
// by walking parent pids, and remembered with their start time so that a pid reused by
// an unrelated process is never signalled.
import { execFile } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

/**
 * @typedef {{ pid: number, ppid: number, startTime: string, pgid?: number, state?: string }} ProcInfo
 * startTime is the kernel's start time in clock ticks since boot on Linux (`ps` lstart elsewhere):
 * with the pid it names one process for good, since pids are reused and start times are not.
 */

/**
 * Every process on the machine with its parent and start time, read afresh. Callers that
 * should share one scan go through a ProcessTable.
 * @returns {Promise<ProcInfo[]>}
 */
export function listProcesses () {
  return process.platform === 'linux' ? listFromProc() : listFromPs()
}

/**
 * /proc files are read synchronously, CHUNK processes at a time with a turn of the event loop
 * between chunks. /proc lives in memory: a synchronous read is a few microseconds, while
 * fs/promises spent ~12 ms of CPU per scan of 78 processes against ~2.5 ms (open, fstat, read
 * and close through the thread pool, a FileHandle and promises per file). In a crash loop the
 * scans were a third of the daemon's CPU per restart. The chunks keep the daemon's loop (which
 * hands connections to cluster workers) from pausing for a whole scan on a busy machine.
 */
const CHUNK = 64

/** @param {string} name */
const isPid = (name) => /^\d+$/.test(name)

async function listFromProc () {
  return readInChunks(readdirSync('/proc').filter(isPid).map(Number), readProcessSync)
}

/**
 * `read` of each item, CHUNK at a time, one event-loop turn between chunks; nulls left out.
 * @template T, R
 * @param {T[]} items
 * @param {(item: T) => R | null} read
 * @returns {Promise<R[]>}
 */
async function readInChunks (items, read) {
  const out = []
  for (let i = 0; i < items.length; i += CHUNK) {
    if (i > 0) await new Promise((resolve) => setImmediate(resolve))
    for (const item of items.slice(i, i + CHUNK)) {
      const value = read(item)
      if (value !== null) out.push(value)
    }
  }
  return out
}

/**
 * One process, or null when there is none with this pid.
 * @param {number} pid
 * @returns {Promise<ProcInfo | null>}
 */
export async function readProcess (pid) {
  if (process.platform !== 'linux') return (await listFromPs()).find((p) => p.pid === pid) ?? null
  return readProcessSync(pid)
}

/**
 * @param {number} pid
 * @returns {ProcInfo | null}
 */
function readProcessSync (pid) {
  try {
    return parseStat(pid, readFileSync(`/proc/${pid}/stat`, 'latin1'))
  } catch {
    return null // the process ended while we looked
  }
}

/**
 * Parse /proc/<pid>/stat. The command name (field 2) may hold spaces and parentheses,
 * so fields are counted from the last ')'.
 * @param {number} pid
 * @param {string} text
 * @returns {ProcInfo}
 */
export function parseStat (pid, text) {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // After the name: state(3) ppid(4) pgrp(5) ... starttime(22) → indexes 0, 1, 2 and 19 here.
  return { pid, ppid: Number(fields[1]), startTime: fields[19], pgid: Number(fields[2]), state: fields[0] }
}

/** @returns {Promise<ProcInfo[]>} */
function listFromPs () {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat=,lstart='], (err, stdout) => {
      if (err) return resolve([])
      resolve(stdout.trim().split('\n').map((line) => {
        const [pid, ppid, pgid, stat, ...start] = line.trim().split(/\s+/)
        return { pid: Number(pid), ppid: Number(ppid), startTime: start.join(' '), pgid: Number(pgid), state: stat[0] }
      }))
    })
  })
}

/**
 * The descendants of `rootPid` (not the root itself), nearest first.
 * @param {number} rootPid
 * @param {ProcInfo[]} [processes]
 * @returns {Promise<ProcInfo[]>}
 */
export async function listDescendants (rootPid, processes) {
  const all = processes ?? await listProcesses()
  /** @type {Map<number, ProcInfo[]>} */
  const children = new Map()
  for (const proc of all) {
    const list = children.get(proc.ppid)
    if (list) list.push(proc)
    else children.set(proc.ppid, [proc])
  }
  const found = []
  const queue = [rootPid]
  const seen = new Set(queue)
  while (queue.length > 0) {
    for (const child of children.get(/** @type {number} */ (queue.shift())) ?? []) {
      if (seen.has(child.pid)) continue
      seen.add(child.pid)
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found
}

/** The variable each worker carries, and every process it starts inherits (daemon/worker/worker.js). */
export const TOKEN_VAR = 'SUP_WORKER_TOKEN'

/** The token in a /proc/<pid>/environ (NUL-separated). */
const TOKEN_PATTERN = new RegExp(`(?:^|\\0)${TOKEN_VAR}=([^\\0]*)`)

/** How long sweeps wait to share one scan of /proc (a crash loop exits many times a second). */
export const SWEEP_BATCH_MS = 300

/**
 * One scan for every token asked for.
 * @param {Map<string, number>} wanted token → start time from which to look
 * @param {ProcInfo[]} processes every process
 * @returns {Promise<Map<string, ProcInfo[]>>}
 */
async function sweep (wanted, processes) {
  const from = Math.min(...wanted.values())
  /** @type {Map<string, ProcInfo[]>} */
  const found = new Map()
  const candidates = processes.filter((p) => Number(p.startTime) >= from && p.pid !== process.pid)
  const marked = await readInChunks(candidates, (proc) => {
    let env
    try {
      env = readFileSync(`/proc/${proc.pid}/environ`, 'latin1')
    } catch {
      return null // gone, or not ours to read
    }
    const token = TOKEN_PATTERN.exec(env)?.[1]
    if (token === undefined || !wanted.has(token)) return null
    return Number(proc.startTime) < /** @type {number} */ (wanted.get(token)) ? null : { token, proc }
  })
  for (const { token, proc } of marked) found.set(token, [...(found.get(token) ?? []), proc])
  return found
}

/**
 * Every process that carries a token a daemon with this pid handed out (tokens are
 * `<daemon pid>.<worker id>.<n>`, daemon/worker/worker.js), started since that daemon: what a
 * dead daemon's workers left behind, including what left their trees in a session of its own.
 * Linux only (elsewhere: none).
 * @param {number} daemonPid
 * @param {string} since that daemon's start time (ticks since boot)
 * @returns {Promise<ProcInfo[]>}
 */
export async function listMarkedByDaemon (daemonPid, since) {
  if (process.platform !== 'linux' || !/^\d+$/.test(since)) return []
  const prefix = `${daemonPid}.`
  const candidates = (await listProcesses()).filter((p) => Number(p.startTime) >= Number(since) && p.pid !== process.pid)
  return readInChunks(candidates, (proc) => {
    let env
    try {
      env = readFileSync(`/proc/${proc.pid}/environ`, 'latin1')
    } catch {
      return null
    }
    return TOKEN_PATTERN.exec(env)?.[1]?.startsWith(prefix) ? proc : null
  })
}

/**
 * Signal the processes that are still the ones we recorded (same pid and start time).
 * @param {ProcInfo[]} recorded
 * @param {NodeJS.Signals} signal
 * @param {() => Promise<ProcInfo[]>} [scan] every process (default: a fresh scan)
 * @returns {Promise<number>} how many were signalled
 */
export async function signalRecorded (recorded, signal, scan = listProcesses) {
  if (recorded.length === 0) return 0
  const current = new Map((await scan()).map((p) => [p.pid, p.startTime]))
  let count = 0
  for (const proc of recorded) {
    if (current.get(proc.pid) !== proc.startTime) continue
    if (sendSignal(proc.pid, signal)) count++
  }
  return count
}

/**
 * process.kill that reports instead of throwing for a process that is already gone.
 * @param {number} pid
 * @param {NodeJS.Signals | 0} signal
 */
export function sendSignal (pid, signal) {
  try {
    process.kill(pid, signal)
    return true
  } catch {
    return false
  }
}

/**
 * The daemon's view of the process table, one per daemon (daemon/worker/effects.js): the scans
 * its callers share live here, not in the module, so two daemons in one process (tests) never
 * see each other's. It is the stop ladder's ProcessTree.
 */
export class ProcessTable {
  /** The scan begun in this tick, shared by every caller of the same tick. @type {Promise<ProcInfo[]> | null} */
  #tickScan = null
  /** Our own start time in ticks since boot: processes started before the daemon are never a worker's. @type {Promise<number> | null} */
  #ownStart = null
  /** The sweep that callers of the next SWEEP_BATCH_MS join. @type {{ wanted: Map<string, number>, result: Promise<Map<string, ProcInfo[]>> } | null} */
  #batch = null

  /**
   * Every process on the machine with its parent and start time. Callers in the same tick
   * share one scan: `sup delete` of an app stops all its workers in one tick, and each used to
   * read the whole of /proc for itself, one file per process, before its SIGINT could go out
   * (docs/benchmarks.md, lifecycle). A later tick always gets a scan of its own, so nobody
   * gets a picture older than its call.
   * @returns {Promise<ProcInfo[]>}
   */
  scan () {
    if (!this.#tickScan) {
      this.#tickScan = listProcesses()
      process.nextTick(() => { this.#tickScan = null })
    }
    return this.#tickScan
  }

  /**
   * The descendants of pid, nearest first.
   * @param {number} pid
   */
  async list (pid) {
    return listDescendants(pid, await this.scan())
  }

  /**
   * @param {number} pid
   * @param {NodeJS.Signals | 0} signal
   */
  signal (pid, signal) {
    return sendSignal(pid, signal)
  }

  /**
   * @param {number} pid
   * @returns {Promise<ProcInfo | null>}
   */
  read (pid) {
    return readProcess(pid)
  }

  /**
   * Signal the processes that are still the ones we recorded (same pid and start time).
   * @param {ProcInfo[]} recorded
   * @param {NodeJS.Signals} signal
   * @returns {Promise<number>} how many were signalled
   */
  signalRecorded (recorded, signal) {
    return signalRecorded(recorded, signal, () => this.scan())
  }

  /**
   * The processes that carry `token` in their environment: a worker's descendants even after
   * they left its tree (a daemonised grandchild, re-parented to init, in a session of its own).
   * Like systemd's control group, minus the kernel's help: a process that cleared its
   * environment is not found. Linux only (elsewhere: none).
   * Cheap enough to run at every exit: the calls of SWEEP_BATCH_MS share one scan, and only
   * processes started since the oldest of their workers are read. A sweep per exit, each reading
   * every process's environment, kept the thread pool so busy that a reload beside a
   * crash-looping app took 16 s instead of 4.
   * @param {string} token
   * @param {string | null} [since] start time (ticks since boot) of the process the token was given to
   * @returns {Promise<ProcInfo[]>}
   */
  async marked (token, since = null) {
    if (process.platform !== 'linux') return []
    this.#ownStart ??= readProcess(process.pid).then((self) => Number(self?.startTime ?? 0))
    const from = since === null ? await this.#ownStart : Number(since)
    if (!this.#batch) {
      const wanted = new Map()
      this.#batch = {
        wanted,
        result: new Promise((resolve) => setTimeout(resolve, SWEEP_BATCH_MS)).then(async () => {
          this.#batch = null
          return sweep(wanted, await this.scan())
        })
      }
    }
    this.#batch.wanted.set(token, Math.min(from, this.#batch.wanted.get(token) ?? Infinity))
    return (await this.#batch.result).get(token) ?? []
  }
}
