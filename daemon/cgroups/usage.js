// @ts-check
// A worker's figures read from its cgroup instead of walking /proc: a handful of small files
// per worker, whatever it started, and nothing it started can hide from them. Their paths are
// made once per worker (path.join was a fifth of a pass), and the sampler keeps them open.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * @typedef {object} CgroupFigures what the kernel counts for one worker's cgroup
 * @property {number} memory bytes the kernel charges it (v2 memory.current; v1 rss + cache of
 *   memory.stat, which is what its usage_in_bytes reports): what max_memory is held against, page cache included
 * @property {number} resident bytes of anonymous memory plus mapped files charged to it
 *   (shared pages counted once, where /proc counts them in every process)
 * @property {number} anon bytes of anonymous memory
 * @property {number} cpu_seconds CPU time of everything that ran in it
 * @property {number} throttled_periods periods in which cpu_limit held it back
 * @property {number} throttled_seconds time it was held back
 * @property {number} oom_kills processes the kernel's OOM killer ended in it
 * @property {number} processes processes in it now
 *
 * @typedef {(path: string) => string | null} ReadFile a file's text, or null when it cannot be
 *   read (the sampler keeps the files open between passes: metrics/kept-files.js)
 *
 * @typedef {object} CgroupFiles where one worker's figures are, and in which version's words
 * @property {1 | 2} memoryVersion
 * @property {string | null} memoryCurrent v2's memory.current (v1: from memory.stat, as the kernel's usage_in_bytes is)
 * @property {string} memoryStat
 * @property {string | null} memoryEvents the OOM kill count's file, where there is a max_memory
 * @property {1 | 2} cpuVersion of the CPU time counter
 * @property {string} cpuTime
 * @property {string | null} throttling cpu.stat of the cpu controller, where there is a cpu_limit
 * @property {1 | 2} throttlingVersion
 * @property {string} procs
 */

/**
 * The files of a worker's figures, or null when it has no memory or CPU accounting (its tree
 * is walked then). Each file read costs a few microseconds a pass, so throttling and OOM kills
 * are read only where a limit can cause them.
 * @param {string} killDir its cgroup in the hierarchy that holds every process
 * @param {Partial<Record<'memory' | 'cpu' | 'pids' | 'cpuacct', { dir: string, version: 1 | 2 }>>} byController
 * @param {Pick<import('../../ipc/app-config.js').AppConfig, 'max_memory' | 'cpu_limit'>} limits
 * @returns {CgroupFiles | null}
 */
export function cgroupFiles (killDir, { memory, cpuacct, cpu }, limits) {
  if (!memory || !cpuacct) return null
  const v2 = memory.version === 2
  return {
    memoryVersion: memory.version,
    memoryCurrent: v2 ? join(memory.dir, 'memory.current') : null,
    memoryStat: join(memory.dir, 'memory.stat'),
    memoryEvents: limits.max_memory == null ? null : join(memory.dir, v2 ? 'memory.events' : 'memory.oom_control'),
    cpuVersion: cpuacct.version,
    cpuTime: join(cpuacct.dir, cpuacct.version === 2 ? 'cpu.stat' : 'cpuacct.usage'),
    throttling: cpu && limits.cpu_limit != null ? join(cpu.dir, 'cpu.stat') : null,
    throttlingVersion: cpu?.version ?? 2,
    procs: join(killDir, 'cgroup.procs')
  }
}

/** @type {ReadFile} */
function readOnce (path) {
  try {
    return readFileSync(path, 'latin1')
  } catch {
    return null
  }
}

/**
 * One `key value` line's number from a flat-keyed file (cpu.stat, memory.stat, memory.events);
 * 0 when absent. Looked up, not parsed whole: v1's memory.stat has 40 lines.
 * @param {string | null} text
 * @param {string} key
 */
export function flatKeyed (text, key) {
  if (text === null) return 0
  let at = text.startsWith(key + ' ') ? 0 : text.indexOf('\n' + key + ' ')
  if (at === -1) return 0
  if (at > 0 || text[0] === '\n') at += 1
  const from = at + key.length + 1
  const end = text.indexOf('\n', from)
  return Number(text.slice(from, end === -1 ? undefined : end)) || 0
}

/**
 * @param {CgroupFiles} files
 * @param {ReadFile} [read]
 * @returns {{ figures: CgroupFigures, pids: number[] } | null} null when its memory files are
 *   gone (the cgroup was removed); pids: the processes in it
 */
export function readCgroupFigures (files, read = readOnce) {
  const v2 = files.memoryVersion === 2
  const stat = read(files.memoryStat)
  const current = files.memoryCurrent === null ? String(flatKeyed(stat, 'total_rss') + flatKeyed(stat, 'total_cache')) : read(files.memoryCurrent)
  if (stat === null || current === null) return null
  const anon = flatKeyed(stat, v2 ? 'anon' : 'total_rss')
  const mapped = flatKeyed(stat, v2 ? 'file_mapped' : 'total_mapped_file')
  const cpuTime = read(files.cpuTime)
  const throttling = files.throttling === null ? null : read(files.throttling)
  const throttledRaw = files.throttlingVersion === 2 ? flatKeyed(throttling, 'throttled_usec') / 1e6 : flatKeyed(throttling, 'throttled_time') / 1e9
  // A worker's cgroup has none below it.
  const pids = (read(files.procs) ?? '').split('\n').filter(Boolean).map(Number)
  return {
    figures: {
      memory: Number(current),
      resident: anon + mapped,
      anon,
      cpu_seconds: files.cpuVersion === 2 ? flatKeyed(cpuTime, 'usage_usec') / 1e6 : Number(cpuTime ?? 0) / 1e9,
      throttled_periods: flatKeyed(throttling, 'nr_throttled'),
      throttled_seconds: throttledRaw,
      oom_kills: files.memoryEvents === null ? 0 : flatKeyed(read(files.memoryEvents), 'oom_kill'),
      processes: pids.length
    },
    pids
  }
}
