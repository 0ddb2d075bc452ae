// @ts-check
// Find the descendants of each worker once per sample, cheaply enough for 1 Hz. On Linux
// the kernel lists every thread's children in /proc/<pid>/task/<tid>/children; we keep
// those files open and re-read them in place (one pread each), so a tick costs a few
// syscalls per process instead of a scan of every process on the machine. Elsewhere, or
// on a kernel without those files, the whole process table is scanned, but only every few
// seconds, and the last tree found is reused in between.
import { existsSync, readdirSync } from 'node:fs'
import { listDescendants, listProcesses } from '../worker/process-tree.js'
import { KeptFiles } from './kept-files.js'

/** How often the fallback scans the whole process table (ms). */
export const FALLBACK_RESCAN_MS = 10_000
/**
 * How often the /proc walker lists a process's threads again and reads the children of its
 * threads other than the main one (ms). A node worker has about eleven threads (libuv's pool,
 * V8's platform threads) and none of them forks: node's child_process and cluster fork from
 * the main thread, as a shell or Python does, and that thread's children are read every walk.
 * A child of another thread (a worker_threads thread, an addon) is counted within this delay.
 * Reading every thread's file every walk was 1,100 reads a second at 100 apps.
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
    /**
     * When each process's threads were last listed, and the children its threads other than
     * the main one had then.
     * @type {Map<number, { at: number, others: number[] }>}
     */
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
   * The children of `pid`'s threads other than the main one: read again, with a new listing
   * of its threads, when the last one is TASKS_RELIST_MS old.
   * @param {number} pid
   * @returns {number[] | null} null: the process is gone
   */
  otherThreadsChildren (pid) {
    this.met.add(pid)
    const known = this.tasks.get(pid)
    if (known && this.now() - known.at < TASKS_RELIST_MS) return known.others
    let tids
    try {
      tids = readdirSync(`${this.procRoot}/${pid}/task`).filter((tid) => tid !== String(pid))
    } catch {
      this.tasks.delete(pid)
      return null // gone
    }
    const others = []
    for (const tid of tids) {
      // A thread that ended since the listing has no file any more, and no children.
      const text = this.files.read(`${this.procRoot}/${pid}/task/${tid}/children`)
      if (text !== null) others.push(...parseChildren(text))
    }
    this.tasks.set(pid, { at: this.now(), others })
    return others
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
   * Children of every thread of `pid` (a child belongs to the thread that forked it): the main
   * thread's read now, the other threads' as of their last reading.
   * @param {number} pid
   * @returns {number[]}
   */
  childrenOf (pid) {
    const others = this.otherThreadsChildren(pid)
    if (!others) return []
    const text = this.files.read(`${this.procRoot}/${pid}/task/${pid}/children`)
    if (text === null) {
      // Gone (or the pid is another process now): list its threads again next time.
      this.tasks.delete(pid)
      return []
    }
    return [...parseChildren(text), ...others]
  }

  close () {
    this.files.close()
    this.tasks.clear()
  }
}

/**
 * The pids in a children file: space-separated, with a trailing space.
 * @param {string} text
 * @returns {number[]}
 */
function parseChildren (text) {
  const pids = []
  for (const word of text.split(' ')) {
    if (word !== '') pids.push(Number(word))
  }
  return pids
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
