// @ts-check
// The Prometheus text exposition format, version 0.0.4: one HELP and one TYPE line per
// family, then its samples; base units (seconds, bytes); label values escaped.
import { STATUS } from '../worker/lifecycle.js'
import { EventTallies } from './event-tallies.js'

export const CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'

/**
 * @typedef {object} ExportedWorker
 * @property {string} app
 * @property {number} instance
 * @property {number} id
 * @property {string} status
 * @property {boolean} running has a process
 * @property {number} restarts
 * @property {number | null} startedAt ms
 * @property {import('./sampler.js').WorkerUsage} usage
 * @property {boolean | null} [ready] its readiness probe passes now; null: the app has none
 * @property {number} [livenessRestarts] restarts its liveness probe caused
 * @property {number | null} [maxMemoryRestart] its app's max_memory_restart, bytes; null: none
 * @property {{ max_memory: number | null, cpu_limit: number | null }} [limits] the kernel's limits of its cgroup (docs/config.md#limits)
 */

/**
 * @typedef {{ name: string, type: 'counter' | 'gauge' | 'summary', help: string, samples: (w: ExportedWorker) => Array<[Record<string, string>, number]> }} Family
 */

const STATES = Object.values(STATUS)

/** @type {Family[]} */
const FAMILIES = [
  {
    name: 'process_cpu_seconds_total',
    type: 'counter',
    help: 'Total user and system CPU time of the worker\'s process tree, in seconds.',
    samples: (w) => w.running && w.usage.time !== null ? [[{}, w.usage.cpu_seconds]] : []
  },
  {
    name: 'process_resident_memory_bytes',
    type: 'gauge',
    help: 'Resident memory of the worker\'s process tree, in bytes.',
    samples: (w) => w.running && w.usage.time !== null ? [[{}, w.usage.memory]] : []
  },
  {
    name: 'process_start_time_seconds',
    type: 'gauge',
    help: 'Start time of the worker process since the unix epoch, in seconds.',
    samples: (w) => w.running && w.startedAt !== null ? [[{}, w.startedAt / 1000]] : []
  },
  {
    name: 'sup_restarts_total',
    type: 'counter',
    help: 'Restarts of the worker, automatic and manual, since it was started or reset.',
    samples: (w) => [[{}, w.restarts]]
  },
  {
    name: 'sup_app_state',
    type: 'gauge',
    help: 'Lifecycle state of the worker: 1 for the current state, 0 for the others.',
    samples: (w) => STATES.map((state) => [{ state }, w.status === state ? 1 : 0])
  },
  {
    name: 'sup_ready',
    type: 'gauge',
    help: 'Readiness probe of the worker: 1 while it passes, 0 while it fails (apps with a readiness probe).',
    samples: (w) => w.running && typeof w.ready === 'boolean' ? [[{}, w.ready ? 1 : 0]] : []
  },
  {
    name: 'sup_liveness_restarts_total',
    type: 'counter',
    help: 'Restarts of the worker caused by its liveness probe, since it was started or reset.',
    samples: (w) => [[{}, w.livenessRestarts ?? 0]]
  },
  // A summary, so the `quantile` label is what Prometheus expects (promtool flags it on a
  // gauge). Without _sum and _count: the agent reports quantiles per interval, not a running
  // count of timer ticks, and both are optional in the text format.
  {
    name: 'sup_event_loop_delay_seconds',
    type: 'summary',
    help: 'Event-loop delay of the worker over the agent\'s last interval, in seconds (node workers).',
    samples: (w) => w.running && w.usage.loop_delay
      ? [[{ quantile: '0.5' }, w.usage.loop_delay.p50 / 1000], [{ quantile: '0.99' }, w.usage.loop_delay.p99 / 1000]]
      : []
  },
  {
    name: 'sup_max_memory_restart_bytes',
    type: 'gauge',
    help: 'The app\'s max_memory_restart: the worker is replaced when its process tree uses more, in bytes (apps that set it).',
    samples: (w) => typeof w.maxMemoryRestart === 'number' ? [[{}, w.maxMemoryRestart]] : []
  },
  {
    name: 'sup_heap_used_bytes',
    type: 'gauge',
    help: 'V8 heap in use in the worker, in bytes (node workers).',
    samples: (w) => w.running && w.usage.heap ? [[{}, w.usage.heap.used]] : []
  },
  {
    name: 'sup_heap_total_bytes',
    type: 'gauge',
    help: 'V8 heap reserved by the worker, in bytes (node workers).',
    samples: (w) => w.running && w.usage.heap ? [[{}, w.usage.heap.total]] : []
  },
  // From the worker's cgroup, where it has one (docs/monitoring.md#cgroups).
  {
    name: 'sup_cgroup_memory_bytes',
    type: 'gauge',
    help: 'Memory the kernel charges to the worker\'s cgroup (page cache included; what max_memory is held against), in bytes.',
    samples: (w) => w.running && w.usage.cgroup ? [[{}, w.usage.cgroup.memory]] : []
  },
  {
    name: 'sup_cgroup_cpu_throttled_seconds_total',
    type: 'counter',
    help: 'Time the worker\'s cgroup was held back by its cpu_limit, in seconds.',
    samples: (w) => w.running && w.usage.cgroup ? [[{}, w.usage.cgroup.throttled_seconds]] : []
  },
  {
    name: 'sup_cgroup_oom_kills_total',
    type: 'counter',
    help: 'Processes the kernel\'s OOM killer ended in the worker\'s cgroup (its max_memory).',
    samples: (w) => w.running && w.usage.cgroup ? [[{}, w.usage.cgroup.oom_kills]] : []
  },
  {
    name: 'sup_memory_limit_bytes',
    type: 'gauge',
    help: 'The worker\'s max_memory, enforced by the kernel, in bytes (apps that set it).',
    samples: (w) => w.limits?.max_memory != null ? [[{}, w.limits.max_memory]] : []
  },
  {
    name: 'sup_cpu_limit_cores',
    type: 'gauge',
    help: 'The worker\'s cpu_limit, enforced by the kernel, in cores (apps that set it).',
    samples: (w) => w.limits?.cpu_limit != null ? [[{}, w.limits.cpu_limit]] : []
  }
]

/** The names of the families exported, for checks of what dashboards and docs query. */
export const FAMILY_NAMES = [...FAMILIES.map((f) => f.name), ...new EventTallies().families().map((f) => f.name)]

/**
 * @param {ExportedWorker[]} workers
 * @param {import('./event-tallies.js').TallyFamily[]} [tallies] the app-level counts
 * @returns {string}
 */
export function renderPrometheus (workers, tallies = []) {
  let text = ''
  for (const family of FAMILIES) {
    text += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`
    for (const w of workers) {
      for (const [labels, value] of family.samples(w)) {
        text += `${family.name}${formatLabels({ app: w.app, instance: String(w.instance), ...labels })} ${formatValue(value)}\n`
      }
    }
  }
  for (const family of tallies) {
    text += `# HELP ${family.name} ${escapeHelp(family.help)}\n# TYPE ${family.name} ${family.type}\n`
    for (const [suffix, labels, value] of family.samples) text += `${family.name}${suffix}${formatLabels(labels)} ${formatValue(value)}\n`
  }
  return text
}

/** @param {Record<string, string>} labels */
function formatLabels (labels) {
  return `{${Object.entries(labels).map(([k, v]) => `${k}="${escapeLabelValue(v)}"`).join(',')}}`
}

/**
 * Label values escape backslash, double quote and line feed.
 * @param {string} value
 */
export function escapeLabelValue (value) {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
}

/**
 * HELP text escapes backslash and line feed.
 * @param {string} text
 */
export function escapeHelp (text) {
  return text.replace(/\\/g, '\\\\').replace(/\n/g, '\\n')
}

/** @param {number} value */
export function formatValue (value) {
  if (Number.isNaN(value)) return 'NaN'
  if (value === Infinity) return '+Inf'
  if (value === -Infinity) return '-Inf'
  return String(value)
}
