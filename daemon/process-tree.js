// @ts-check
// Find and signal a worker's whole process tree. Cluster workers cannot be put in a
// process group of their own (cluster.fork has no `detached`), so descendants are found
// by walking parent pids, and remembered with their start time so that a pid reused by
// an unrelated process is never signalled.
import { execFile } from 'node:child_process'
import { readdir, readFile } from 'node:fs/promises'

/** @typedef {{ pid: number, ppid: number, startTime: string }} ProcInfo */

/**
 * Every process on the machine with its parent and start time.
 * @returns {Promise<ProcInfo[]>}
 */
export async function listProcesses () {
  if (process.platform === 'linux') return listFromProc()
  return listFromPs()
}

async function listFromProc () {
  const entries = await readdir('/proc')
  const reads = entries.filter((name) => /^\d+$/.test(name)).map((name) => readStat(Number(name)))
  return /** @type {ProcInfo[]} */ ((await Promise.all(reads)).filter(Boolean))
}

/**
 * @param {number} pid
 * @returns {Promise<ProcInfo | null>}
 */
async function readStat (pid) {
  try {
    return parseStat(pid, await readFile(`/proc/${pid}/stat`, 'latin1'))
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
  // After the name: state(3) ppid(4) ... starttime(22) → indexes 1 and 19 here.
  return { pid, ppid: Number(fields[1]), startTime: fields[19] }
}

/** @returns {Promise<ProcInfo[]>} */
function listFromPs () {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,lstart='], (err, stdout) => {
      if (err) return resolve([])
      resolve(stdout.trim().split('\n').map((line) => {
        const [pid, ppid, ...start] = line.trim().split(/\s+/)
        return { pid: Number(pid), ppid: Number(ppid), startTime: start.join(' ') }
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

/**
 * Signal the processes that are still the ones we recorded (same pid and start time).
 * @param {ProcInfo[]} recorded
 * @param {NodeJS.Signals} signal
 * @returns {Promise<number>} how many were signalled
 */
export async function signalRecorded (recorded, signal) {
  if (recorded.length === 0) return 0
  const current = new Map((await listProcesses()).map((p) => [p.pid, p.startTime]))
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
