// @ts-check
// The limits an app asks for (max_memory, memory_high, cpu_limit, max_pids) as the files of
// its workers' cgroups, v2 or v1, and what an OOM kill by the kernel says. Pure, but for the
// reads of a cgroup's counters.
import { SupError } from '../../ipc/errors.js'
import { readControl } from './cgroup-dir.js'

/** The period cpu.max (v1: cpu.cfs_period_us) counts quota in, µs: the kernel's default. */
export const CPU_PERIOD_US = 100_000

/** Each limit key and the controller that enforces it. */
export const LIMIT_CONTROLLERS = /** @type {const} */ ({ max_memory: 'memory', memory_high: 'memory', cpu_limit: 'cpu', max_pids: 'pids' })

/**
 * @typedef {keyof typeof LIMIT_CONTROLLERS} LimitKey
 * @typedef {{ file: string, value: string, optional?: boolean }} LimitWrite optional: a file an
 *   older kernel or a machine without swap accounting lacks
 */

/**
 * The writes that set an app's limits in one controller's cgroup, in order.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {'memory' | 'cpu' | 'pids' | 'cpuacct'} controller
 * @param {1 | 2} version
 * @returns {LimitWrite[]}
 */
export function limitWrites (config, controller, version) {
  /** @type {LimitWrite[]} */
  const writes = []
  if (controller === 'memory') {
    const { max_memory: max, memory_high: high } = config
    if (max !== null && version === 2) {
      writes.push({ file: 'memory.max', value: String(max) })
      // Swap would let it run past the limit, slowly, instead of being OOM-killed; and an OOM
      // kill ends the whole worker (all it started), not one process of it.
      writes.push({ file: 'memory.swap.max', value: '0', optional: true }, { file: 'memory.oom.group', value: '1', optional: true })
    }
    if (max !== null && version === 1) {
      writes.push({ file: 'memory.limit_in_bytes', value: String(max) })
      writes.push({ file: 'memory.memsw.limit_in_bytes', value: String(max), optional: true })
    }
    // v1 has no memory.high: its soft limit is what the kernel reclaims down to under pressure.
    if (high !== null) writes.push({ file: version === 2 ? 'memory.high' : 'memory.soft_limit_in_bytes', value: String(high) })
  }
  if (controller === 'cpu' && config.cpu_limit !== null) {
    const quota = String(Math.max(1000, Math.round(config.cpu_limit * CPU_PERIOD_US)))
    if (version === 2) writes.push({ file: 'cpu.max', value: `${quota} ${CPU_PERIOD_US}` })
    else writes.push({ file: 'cpu.cfs_period_us', value: String(CPU_PERIOD_US) }, { file: 'cpu.cfs_quota_us', value: quota })
  }
  if (controller === 'pids' && config.max_pids !== null) writes.push({ file: 'pids.max', value: String(config.max_pids) })
  return writes
}

/**
 * Refuse an app whose limits this daemon cannot enforce, or that contradict each other.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {(controller: string) => boolean} has whether the daemon has a cgroup for the controller
 * @param {string} reason why not, when it has none
 */
export function checkLimits (config, has, reason) {
  for (const [key, controller] of Object.entries(LIMIT_CONTROLLERS)) {
    if (config[/** @type {LimitKey} */ (key)] === null || config[/** @type {LimitKey} */ (key)] === undefined) continue
    if (!has(controller)) throw new SupError('SUP_ERR_APP_LIMIT_UNSUPPORTED', { name: config.name, key, reason })
  }
  const { max_memory: max, memory_high: high } = config
  if (max != null && high != null && high >= max) throw new SupError('SUP_ERR_APP_LIMITS_CONFLICT', { name: config.name, high, max })
}

/**
 * How many processes the kernel's OOM killer ended in a memory cgroup (v2 memory.events,
 * v1 memory.oom_control: Linux 4.13+).
 * @param {string} dir
 * @param {1 | 2} version
 */
export function readOomKills (dir, version) {
  const text = readControl(dir, version === 2 ? 'memory.events' : 'memory.oom_control') ?? ''
  return Number(/^oom_kill (\d+)$/m.exec(text)?.[1] ?? 0)
}

/** @param {number} bytes */
const mib = (bytes) => `${Math.round(bytes / 1048576)} MiB`

/**
 * Why a worker was OOM-killed, in words, or null when its max_memory was not what ended it.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {number} oomKills the count in its memory cgroup
 */
export function oomCause (config, oomKills) {
  if (oomKills === 0) return null
  const limit = config.max_memory === null ? 'its memory limit' : `max_memory (${mib(config.max_memory)})`
  return `OOM-killed by the kernel: over ${limit}`
}
