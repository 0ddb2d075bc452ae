// @ts-check
// The one table of RPC methods: each method's params schema. The daemon validates every
// request against it before any handler runs (design §5).
import { APP_CONFIG_SCHEMA, APP_NAME_PATTERN, ENV_RECORD } from './app-config.js'

/** @typedef {import('./schema.js').Schema} Schema */

/**
 * @typedef {object} WorkerRow one line of `sup ls --json` (design §10)
 * @property {number} id
 * @property {string} name
 * @property {string} namespace the app's namespace ("default" unless set)
 * @property {number} instance
 * @property {number | null} pid
 * @property {'starting' | 'online' | 'stopping' | 'stopped' | 'waiting' | 'errored'} status
 * @property {'cluster' | 'fork'} mode
 * @property {number} restarts
 * @property {number} uptime ms
 * @property {number} cpu percent
 * @property {number} memory bytes
 * @property {number} unstable_restarts
 * @property {number | null} retry_at
 * @property {{ code: number | null, signal: string | null, at: number, reason?: string } | null} last_exit reason: set when the process could not be started at all (E2BIG, EACCES, ...)
 * @property {{ code: string, message: string, details: Record<string, unknown> } | null} log_error a log file of this worker cannot be written
 * @property {number} log_dropped_lines lines its log files could not take (disk too slow or failing)
 * @property {number} log_dropped_bytes
 * @property {'crashed' | 'rebooted' | 'resurrect' | string | null} [restored] how the app came back from dump.json, if it did
 * @property {boolean | null} [ready] its readiness probe passes now; null when the app has none (docs/probes.md)
 * @property {number} [liveness_restarts] restarts because its liveness probe failed
 * @property {{ reason: string, at: number } | null} [last_restart] why sup last restarted it on its own (a failed liveness probe), and when
 * @property {{ kind: 'node' | 'bun' | 'deno', path: string, version: string, source: string } | null} [runtime] the program its process runs on
 * @property {{ max_memory: number | null, memory_high: number | null, cpu_limit: number | null, max_pids: number | null }} [limits] the kernel's limits of each of its processes (docs/config.md#limits)
 * @property {{ memory: number, resident: number, anon: number, cpu_seconds: number, throttled_periods: number, throttled_seconds: number, oom_kills: number, processes: number } | null} [cgroup]
 *   what the kernel counts in its cgroup (bytes, seconds), where it has one; its cpu and memory come from these then
 *   (node: its `process.version`); null for other interpreters and before its first start (docs/config.md#interpreter)
 */

export { PROTOCOL_VERSION } from './version.js'

export const TOPICS = /** @type {const} */ (['log', 'app.state', 'metrics', 'reload.progress', 'event'])

/** A target names an app, its script file, a namespace, a worker id, or "all" (daemon/resolve-targets.js). */
const target = /** @type {const} */ ({ type: 'string', minLength: 1, maxLength: 256 })
const settingsApp = /** @type {const} */ ({ type: 'string', pattern: APP_NAME_PATTERN })
/** A `sup set` key is an environment variable's name: no "=" (the kernel's separator). */
const settingsKey = /** @type {const} */ ({ type: 'string', minLength: 1, maxLength: 256, pattern: /^[^=\0]+$/ })
/** The caller's working directory: a target may be a script path relative to it (`sup stop app.js`). */
const cwd = /** @type {const} */ ({ type: 'string', minLength: 1, maxLength: 4096 })
const targets = /** @type {const} */ ({ type: 'object', required: ['targets'], properties: { targets: { type: 'array', items: target, minItems: 1, maxItems: 1024 }, cwd } })
const none = /** @type {const} */ ({ type: 'object', properties: {} })
/** The caller's shell environment: inherited by the workers, never saved to disk. */
const shellEnv = ENV_RECORD

/** @type {Record<string, Schema>} */
export const METHODS = {
  hello: { type: 'object', required: ['protocol'], properties: { protocol: { type: 'integer' }, client: { type: 'string', maxLength: 256 } } },
  'daemon.ping': none,
  'daemon.kill': none,
  'app.start': {
    type: 'object',
    required: ['apps'],
    properties: {
      apps: { type: 'array', items: APP_CONFIG_SCHEMA, minItems: 1, maxItems: 256 },
      // The caller's shell environment: inherited by the workers, never saved to disk.
      shellEnv: ENV_RECORD,
      // "restart": apps that exist are restarted with these settings (a config file, PM2's start)
      existing: { type: 'string', enum: ['restart'] },
      // The settings the caller's flags name: what an existing app, stopped, takes on restart
      given: { type: 'array', items: { type: 'string', maxLength: 64 }, maxItems: 256 }
    }
  },
  'app.stop': targets,
  'app.restart': {
    type: 'object',
    required: ['targets'],
    properties: {
      ...targets.properties,
      shellEnv,
      // Settings to change (--node-args), checked against the app config schema's types
      update: { type: 'object', properties: /** @type {{ properties: Record<string, Schema> }} */ (APP_CONFIG_SCHEMA).properties },
      toggleWatch: { type: 'boolean' }
    }
  },
  'app.reload': {
    type: 'object',
    required: ['targets'],
    properties: {
      ...targets.properties,
      // New settings, from a config file: apps not running are started.
      apps: { type: 'array', items: APP_CONFIG_SCHEMA, maxItems: 256 },
      shellEnv,
      // Settings to change in the targeted apps (--node-args)
      update: { type: 'object', properties: /** @type {{ properties: Record<string, Schema> }} */ (APP_CONFIG_SCHEMA).properties },
      surge: { type: 'integer', minimum: 0, maximum: 1024 },
      maxUnavailable: { type: 'integer', minimum: 0, maximum: 1024 }
    }
  },
  'app.scale': { type: 'object', required: ['target', 'count'], properties: { target, count: { type: 'string', minLength: 1, maxLength: 16 } } },
  'app.delete': targets,
  'app.reset': targets,
  'app.list': none,
  'app.describe': { type: 'object', required: ['target'], properties: { target } },
  'app.env': { type: 'object', required: ['target'], properties: { target, cwd } },
  'app.signal': { type: 'object', required: ['targets', 'signal'], properties: { ...targets.properties, signal: { type: 'string', maxLength: 32 } } },
  'logs.tail': {
    type: 'object',
    properties: {
      target: { anyOf: [target, { type: 'null' }] },
      lines: { type: 'integer', minimum: 0, maximum: 100000 },
      stream: { type: 'string', enum: ['out', 'err', 'both'] }
    }
  },
  // `sup events [target]`: the supervisor's decisions kept (daemon/events/journal.js)
  'events.list': {
    type: 'object',
    properties: {
      target: { anyOf: [target, { type: 'null' }] },
      limit: { type: 'integer', minimum: 1, maximum: 100000 }
    }
  },
  'dump.save': { type: 'object', properties: { force: { type: 'boolean' } } },
  // shellEnv as for app.start: what the resurrected workers inherit, never saved.
  'dump.resurrect': { type: 'object', properties: { shellEnv: ENV_RECORD } },
  // unreported: only the notes no caller was told yet, then marked told (sup ls prints each once)
  'dump.status': { type: 'object', properties: { unreported: { type: 'boolean' } } },
  // `sup set <app>.<key> <value>`: values given to the app's workers as environment variables
  'settings.set': {
    type: 'object',
    required: ['entries'],
    properties: {
      entries: { type: 'array', minItems: 1, maxItems: 256, items: { type: 'object', required: ['app', 'key', 'value'], properties: { app: settingsApp, key: settingsKey, value: { type: 'string', maxLength: 1 << 16 } } } }
    }
  },
  'settings.unset': { type: 'object', required: ['app'], properties: { app: settingsApp, key: { anyOf: [settingsKey, { type: 'null' }] } } },
  'settings.get': { type: 'object', properties: { app: { anyOf: [settingsApp, { type: 'null' }] } } },
  'logs.reopen': none,
  'logs.flush': { type: 'object', properties: { target: { anyOf: [target, { type: 'null' }] } } },
  'metrics.serve': {
    type: 'object',
    required: ['port'],
    properties: {
      port: { type: 'integer', minimum: 0, maximum: 65535 },
      host: { type: 'string', minLength: 1, maxLength: 255 }
    }
  },
  'metrics.close': none,
  'metrics.status': none,
  'metrics.history': {
    type: 'object',
    properties: {
      target: { anyOf: [target, { type: 'null' }] },
      points: { type: 'integer', minimum: 1, maximum: 100000 }
    }
  },
  subscribe: {
    type: 'object',
    required: ['topics'],
    properties: {
      topics: { type: 'array', items: { type: 'string', enum: TOPICS }, minItems: 1 },
      apps: { type: 'array', items: target, maxItems: 1024 }
    }
  }
}
