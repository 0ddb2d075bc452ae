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
    return new ProcChildrenWalker(procRoot)
  }
  return new ScanningWalker(now)
}

export class ProcChildrenWalker {
  /** @param {string} procRoot */
  constructor (procRoot) {
    this.procRoot = procRoot
    this.files = new KeptFiles()
  }

  /** @param {number[]} roots */
  async walk (roots) {
    const result = new Map()
    for (const root of roots) result.set(root, this.descendants(root))
    this.files.sweep()
    return result
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
    let tids
    try {
      tids = readdirSync(`${this.procRoot}/${pid}/task`)
    } catch {
      return [] // gone
    }
    const children = []
    for (const tid of tids) {
      const text = this.files.read(`${this.procRoot}/${pid}/task/${tid}/children`)
      if (text === null) continue
      for (const word of text.split(' ')) {
        if (word !== '') children.push(Number(word))
      }
    }
    return children
  }

  close () {
    this.files.close()
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
