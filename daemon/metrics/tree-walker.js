// @ts-check
// Find the descendants of each worker once per sample, cheaply enough for 1 Hz. On Linux
// the kernel lists every thread's children in /proc/<pid>/task/<tid>/children; we keep
// those files open and re-read them in place (one pread each), so a tick costs a few
// syscalls per process instead of a scan of every process on the machine. Elsewhere, or
// on a kernel without those files, the whole process table is scanned, but only every few
// seconds, and the last tree found is reused in between.
import { existsSync, readdirSync } from 'node:fs'
import { listDescendants, listProcesses } from '../process-tree.js'
import { KeptFiles } from './kept-files.js'

/** How often the fallback scans the whole process table (ms). */
export const FALLBACK_RESCAN_MS = 10_000
/**
 * How often the /proc walker lists a process's threads again (ms). Listing them (a readdir of
 * /proc/<pid>/task) cost more than reading their children files; threads come and go rarely,
 * and a child forked by a thread born since the last listing is counted at the next one. A
 * process's main thread, which forks what node's child_process starts, is always read.
 */
export const TASKS_RELIST_MS = 10_000

/**
 * @typedef {object} TreeWalker
 * @property {(roots: number[]) => Promise<Map<number, number[]>>} walk root pid → its descendants' pids
 * @property {() => void} close release what the walker holds open
 */

/**
 * The best walker for this machine.
 * @param {{ now?: () => number, procRoot?: string }} [options]
 * @returns {TreeWalker}
 */
export function createTreeWalker ({ now = Date.now, procRoot = '/proc' } = {}) {
  if (process.platform === 'linux' && existsSync(`${procRoot}/${process.pid}/task/${process.pid}/children`)) {
    return new ProcChildrenWalker(procRoot, now)
  }
  return new ScanningWalker(now)
}

export class ProcChildrenWalker {
  /**
   * @param {string} procRoot
   * @param {() => number} [now]
   */
  constructor (procRoot, now = Date.now) {
    this.procRoot = procRoot
    this.now = now
    this.files = new KeptFiles()
    /** The threads of each process seen, as last listed. @type {Map<number, { tids: string[], at: number }>} */
    this.tasks = new Map()
    /** Processes met in this walk, so the others' thread lists are dropped. @type {Set<number>} */
    this.met = new Set()
  }

  /** @param {number[]} roots */
  async walk (roots) {
    const result = new Map()
    for (const root of roots) result.set(root, this.descendants(root))
    this.files.sweep()
    for (const pid of this.tasks.keys()) if (!this.met.has(pid)) this.tasks.delete(pid)
    this.met.clear()
    return result
  }

  /**
   * The thread ids of `pid`, listed again when the last listing is TASKS_RELIST_MS old.
   * @param {number} pid
   * @returns {string[] | null} null: the process is gone
   */
  tidsOf (pid) {
    this.met.add(pid)
    const known = this.tasks.get(pid)
    if (known && this.now() - known.at < TASKS_RELIST_MS) return known.tids
    try {
      const tids = readdirSync(`${this.procRoot}/${pid}/task`)
      this.tasks.set(pid, { tids, at: this.now() })
      return tids
    } catch {
      this.tasks.delete(pid)
      return null // gone
    }
  }

  /** @param {number} root */
  descendants (root) {
    const found = []
    const queue = [root]
    const seen = new Set(queue)
    while (queue.length > 0) {
      const pid = /** @type {number} */ (queue.shift())
      for (const child of this.childrenOf(pid)) {
        if (seen.has(child)) continue
        seen.add(child)
        found.push(child)
        queue.push(child)
      }
    }
    return found
  }

  /**
   * Children of every thread of `pid` (a child belongs to the thread that forked it).
   * @param {number} pid
   * @returns {number[]}
   */
  childrenOf (pid) {
    const tids = this.tidsOf(pid)
    if (!tids) return []
    const children = []
    for (const tid of tids) {
      const text = this.files.read(`${this.procRoot}/${pid}/task/${tid}/children`)
      if (text === null) {
        // That thread ended (or the pid is another process now): list the threads next time.
        if (tid === String(pid)) this.tasks.delete(pid)
        else this.tasks.set(pid, { tids: tids.filter((t) => t !== tid), at: this.tasks.get(pid)?.at ?? 0 })
        continue
      }
      for (const word of text.split(' ')) {
        if (word !== '') children.push(Number(word))
      }
    }
    return children
  }

  close () {
    this.files.close()
    this.tasks.clear()
  }
}

export class ScanningWalker {
  /** @param {() => number} now */
  constructor (now) {
    this.now = now
    this.scannedAt = -Infinity
    /** @type {Map<number, number[]>} */
    this.trees = new Map()
  }

  /** @param {number[]} roots */
  async walk (roots) {
    const stale = this.now() - this.scannedAt >= FALLBACK_RESCAN_MS
    const unknown = roots.some((root) => !this.trees.has(root))
    if (stale || unknown) {
      const processes = await listProcesses()
      this.trees = new Map()
      for (const root of roots) {
        this.trees.set(root, (await listDescendants(root, processes)).map((p) => p.pid))
      }
      this.scannedAt = this.now()
    }
    return new Map(roots.map((root) => [root, this.trees.get(root) ?? []]))
  }

  close () {
    this.trees.clear()
  }
}
