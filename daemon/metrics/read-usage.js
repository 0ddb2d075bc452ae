// @ts-check
// CPU time and resident memory of a set of pids. On Linux we read /proc/<pid>/stat
// ourselves, synchronously, through fds kept open between samples: a pass over 8 workers is
// a handful of preads and one event-loop turn. pidusage reads the same file, but through the
// thread pool with fresh buffers and a read of /proc/uptime each call; measured here that
// tripled the daemon's sampling cost (docs/monitoring.md#what-sampling-costs). Elsewhere
// pidusage does the work (ps on macOS and the BSDs, wmic or PowerShell on Windows).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { KeptFiles } from './kept-files.js'

/** @typedef {{ ctime: number, memory: number }} PidUsage ctime: user+system CPU in ms since the process started; memory: RSS in bytes */

/**
 * @typedef {object} UsageReader
 * @property {(pids: number[]) => Promise<Map<number, PidUsage>>} read pids that have ended are absent from the result
 * @property {() => void} close
 */

/**
 * @param {{ interval: number, procRoot?: string }} options interval: the sampling interval (ms)
 * @returns {UsageReader}
 */
export function createUsageReader ({ interval, procRoot = '/proc' }) {
  if (process.platform === 'linux') return new ProcStatReader(procRoot)
  return new PidusageReader(interval)
}

/**
 * utime and stime are in clock ticks of USER_HZ, which is 100 on every architecture Node
 * runs on (it is part of the kernel ABI, unlike the internal HZ).
 */
const USER_HZ = 100

export class ProcStatReader {
  /** @param {string} procRoot */
  constructor (procRoot) {
    this.procRoot = procRoot
    this.files = new KeptFiles(1024)
    this.pageSize = measurePageSize(procRoot)
  }

  /** @param {number[]} pids */
  async read (pids) {
    const result = new Map()
    for (const pid of pids) {
      const text = this.files.read(`${this.procRoot}/${pid}/stat`)
      const usage = text === null ? null : parseStatUsage(text, this.pageSize)
      if (usage) result.set(pid, usage)
    }
    this.files.sweep()
    return result
  }

  close () {
    this.files.close()
  }
}

/**
 * utime (14), stime (15) and rss (24, in pages) from a /proc/<pid>/stat line. Fields are
 * counted from the last ')' because the command name may hold spaces and parentheses.
 * @param {string} text
 * @param {number} pageSize
 * @returns {PidUsage | null}
 */
export function parseStatUsage (text, pageSize) {
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  // After the name, field 3 (state) is index 0: utime 14 → 11, stime 15 → 12, rss 24 → 21.
  const utime = Number(fields[11])
  const stime = Number(fields[12])
  const rss = Number(fields[21])
  if (!Number.isFinite(utime) || !Number.isFinite(stime) || !Number.isFinite(rss)) return null
  return { ctime: ((utime + stime) * 1000) / USER_HZ, memory: rss * pageSize }
}

/**
 * The page size, without spawning getconf: our own RSS in bytes (from libuv) over our RSS in
 * pages (from /proc), rounded to a power of two.
 * @param {string} procRoot
 */
export function measurePageSize (procRoot) {
  try {
    const pages = Number(readFileSync(`${procRoot}/self/stat`, 'latin1').split(') ')[1].split(' ')[21])
    const ratio = process.memoryUsage.rss() / pages
    const size = 2 ** Math.round(Math.log2(ratio))
    return size >= 1024 && size <= 1024 * 1024 ? size : 4096
  } catch {
    return 4096
  }
}

/** pidusage ships no types; this is the part of its API we use. */
/** @typedef {(pids: number[], options: { maxage: number }) => Promise<Record<string, PidUsage | undefined>>} Pidusage */

export class PidusageReader {
  /** @param {number} interval */
  constructor (interval) {
    // pidusage forgets a pid (and closes what it keeps for it) after this long unasked.
    this.maxage = Math.max(3 * interval, 1000)
    // Loaded here, not at import: on Linux the daemon never needs it, and its modules were
    // six files more to load at every daemon start.
    /** @type {Pidusage} */
    this.pidusage = createRequire(import.meta.url)('pidusage')
  }

  /** @param {number[]} pids */
  async read (pids) {
    const result = new Map()
    if (pids.length === 0) return result
    let stats
    try {
      stats = await this.pidusage(pids, { maxage: this.maxage })
    } catch {
      return result // the only pid asked for is gone
    }
    for (const pid of pids) {
      const stat = stats[pid]
      if (stat && Number.isFinite(stat.ctime) && Number.isFinite(stat.memory)) {
        result.set(pid, { ctime: stat.ctime, memory: stat.memory })
      }
    }
    return result
  }

  close () {}
}
