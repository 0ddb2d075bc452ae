// @ts-check
// The normalised app config: what the CLI sends in app.start and what the daemon keeps.
// It is immutable once validated; runtime state (pid, status, restarts) lives elsewhere.

/**
 * @typedef {object} AppConfig
 * @property {string} name
 * @property {string} namespace a group of apps that one CLI target names ("default" unless set)
 * @property {string} script absolute path, or a command found on PATH
 * @property {string[]} args
 * @property {string} cwd absolute
 * @property {'cluster' | 'fork'} exec_mode
 * @property {number} instances
 * @property {string | null} interpreter null runs the script with node (which one: `runtime`); else another program (python3, bun, ...) or "none"
 * @property {string | null} runtime the node a node app asks for: a path or "node@22"; null = `.nvmrc` / `.node-version` in its cwd, else the daemon's own (docs/config.md#interpreter)
 * @property {string[]} interpreter_args node args for node apps, interpreter args otherwise
 * @property {Record<string, string>} env the app's own env (config + --env), not the caller's shell
 * @property {string} instance_var
 * @property {string | null} increment_var
 * @property {boolean} wait_ready
 * @property {number} listen_timeout ms
 * @property {number} kill_timeout ms
 * @property {boolean} shutdown_with_message
 * @property {number} max_restarts
 * @property {number} min_uptime ms
 * @property {number} restart_delay ms
 * @property {number} exp_backoff_restart_delay ms, 0 = off
 * @property {boolean} autorestart
 * @property {boolean} autostart false: `sup start` registers the app with its workers stopped
 * @property {boolean} vizion read the git revision of the app's folder when a worker starts (PM2's name)
 * @property {number[]} stop_exit_codes
 * @property {number | null} max_memory_restart bytes
 * @property {string | null} out_file
 * @property {string | null} error_file
 * @property {string | boolean | null} log_file stdout and stderr together; true = $SUP_HOME/logs/<name>.log; false or null = none
 * @property {string | null} pid_file each worker's pid is written to this path, with `-<id>` before `.pid` (PM2's rule)
 * @property {boolean} merge_logs
 * @property {boolean} time prefix log lines with a timestamp
 * @property {string | null} log_date_format dayjs-style format of that timestamp; implies time
 * @property {'raw' | 'json'} log_type
 * @property {number | null} log_max_size bytes a log file reaches before it rotates; 0 = never; null = the daemon's default
 * @property {number | null} log_retain rotated files kept per log file; null = the daemon's default
 * @property {boolean | null} log_compress gzip rotated files; null = the daemon's default
 * @property {string | null} cron_restart cron expression (5 fields, or 6 with seconds first), checked at `sup start`
 * @property {boolean} watch restart the workers when files change
 * @property {string[]} watch_paths absolute; empty = the app's cwd
 * @property {string[]} ignore_watch globs or paths not to watch (node_modules and .git never are)
 * @property {number} watch_delay ms of quiet after the last change before restarting
 * @property {string[]} listen sockets the daemon binds and hands to every generation (fork mode): canonical entries of ipc/listen.js ("3000", "127.0.0.1:8080", "unix:/run/app.sock")
 * @property {ProbeConfig | null} readiness a worker is ready (online, given connections) once this passes (docs/probes.md)
 * @property {ProbeConfig | null} liveness a worker whose probe fails `failure_threshold` times in a row is restarted
 * @property {string[]} depends_on apps that must be ready before this one starts
 * @property {string | null} source the config file it came from
 */

/**
 * @typedef {object} ProbeConfig a readiness or liveness probe, normalised (docs/probes.md)
 * @property {'http' | 'tcp' | 'exec'} type
 * @property {string} host http, tcp: where to connect when the daemon checks itself (default 127.0.0.1)
 * @property {number | null} port http, tcp: null = the worker's own (its server, env PORT, or the first listen port)
 * @property {string} path http: the path to GET
 * @property {number | null} status http: the status expected; null = any 2xx or 3xx
 * @property {string[]} command exec: argv, run without a shell in the app's cwd
 * @property {number} initial_delay ms from the worker's start to the first check
 * @property {number} period ms from the start of one check to the start of the next
 * @property {number} timeout ms a check may take
 * @property {number} failure_threshold failures in a row that make the probe fail
 * @property {number} success_threshold successes in a row that make it pass again
 */

/** Names become file names (logs) and CLI targets, so they are kept to a safe alphabet. */
export const APP_NAME_PATTERN = /^(?![.-])[A-Za-z0-9._-]{1,64}$/

/** PM2's defaults where PM2 has the key; kill_timeout is longer to give apps time to drain. */
export const APP_DEFAULTS = Object.freeze({
  args: [],
  exec_mode: /** @type {'fork'} */ ('fork'),
  instances: 1,
  interpreter: null,
  runtime: null,
  interpreter_args: [],
  env: {},
  instance_var: 'NODE_APP_INSTANCE',
  increment_var: null,
  wait_ready: false,
  listen_timeout: 8000,
  kill_timeout: 5000,
  shutdown_with_message: false,
  max_restarts: 16,
  min_uptime: 1000,
  restart_delay: 0,
  exp_backoff_restart_delay: 0,
  autorestart: true,
  autostart: true,
  vizion: true,
  stop_exit_codes: [],
  max_memory_restart: null,
  out_file: null,
  error_file: null,
  log_file: null,
  pid_file: null,
  merge_logs: false,
  time: false,
  log_date_format: null,
  log_type: /** @type {'raw'} */ ('raw'),
  log_max_size: null,
  log_retain: null,
  log_compress: null,
  cron_restart: null,
  watch: false,
  watch_paths: [],
  ignore_watch: [],
  watch_delay: 1000,
  listen: [],
  readiness: null,
  liveness: null,
  depends_on: [],
  source: null,
  namespace: 'default'
})

const ms = /** @type {const} */ ({ type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 })
const str = /** @type {const} */ ({ type: 'string', maxLength: 4096 })
const nullableStr = /** @type {const} */ ({ anyOf: [str, { type: 'null' }] })
/** An environment: names without "=" (the kernel's separator), values of any text but NUL. */
export const ENV_RECORD = /** @type {const} */ ({
  type: 'record',
  keys: { type: 'string', minLength: 1, maxLength: 4096, pattern: /^[^=]+$/ },
  values: { type: 'string', maxLength: 1 << 20 }
})
const strList = /** @type {const} */ ({ type: 'array', items: str, maxItems: 1024 })

/** @type {import('./schema.js').Schema} */
const PROBE_SCHEMA = {
  type: 'object',
  required: ['type', 'host', 'port', 'path', 'status', 'command', 'initial_delay', 'period', 'timeout', 'failure_threshold', 'success_threshold'],
  properties: {
    type: { type: 'string', enum: ['http', 'tcp', 'exec'] },
    host: { type: 'string', minLength: 1, maxLength: 255 },
    port: { anyOf: [{ type: 'integer', minimum: 1, maximum: 65535 }, { type: 'null' }] },
    path: { type: 'string', maxLength: 4096 },
    status: { anyOf: [{ type: 'integer', minimum: 100, maximum: 599 }, { type: 'null' }] },
    command: strList,
    initial_delay: ms,
    period: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    timeout: { type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 },
    failure_threshold: { type: 'integer', minimum: 1, maximum: 1000 },
    success_threshold: { type: 'integer', minimum: 1, maximum: 1000 }
  }
}

/** @type {import('./schema.js').Schema} */
export const APP_CONFIG_SCHEMA = {
  type: 'object',
  required: Object.keys(APP_DEFAULTS).concat(['name', 'script', 'cwd']),
  properties: {
    name: { type: 'string', pattern: APP_NAME_PATTERN },
    script: { type: 'string', minLength: 1, maxLength: 4096 },
    args: strList,
    cwd: { type: 'string', minLength: 1, maxLength: 4096 },
    exec_mode: { type: 'string', enum: ['cluster', 'fork'] },
    instances: { type: 'integer', minimum: 1, maximum: 1024 },
    interpreter: nullableStr,
    runtime: nullableStr,
    interpreter_args: strList,
    env: ENV_RECORD,
    instance_var: { type: 'string', minLength: 1, maxLength: 256 },
    increment_var: nullableStr,
    wait_ready: { type: 'boolean' },
    listen_timeout: ms,
    kill_timeout: ms,
    shutdown_with_message: { type: 'boolean' },
    max_restarts: { type: 'integer', minimum: 0, maximum: 1e9 },
    min_uptime: ms,
    restart_delay: ms,
    exp_backoff_restart_delay: ms,
    autorestart: { type: 'boolean' },
    autostart: { type: 'boolean' },
    vizion: { type: 'boolean' },
    stop_exit_codes: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 }, maxItems: 256 },
    max_memory_restart: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] },
    out_file: nullableStr,
    error_file: nullableStr,
    log_file: { anyOf: [str, { type: 'boolean' }, { type: 'null' }] },
    pid_file: nullableStr,
    merge_logs: { type: 'boolean' },
    time: { type: 'boolean' },
    log_date_format: { anyOf: [{ type: 'string', maxLength: 256 }, { type: 'null' }] },
    log_type: { type: 'string', enum: ['raw', 'json'] },
    log_max_size: { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'null' }] },
    log_retain: { anyOf: [{ type: 'integer', minimum: 0, maximum: 100000 }, { type: 'null' }] },
    log_compress: { anyOf: [{ type: 'boolean' }, { type: 'null' }] },
    cron_restart: { anyOf: [{ type: 'string', maxLength: 256 }, { type: 'null' }] },
    watch: { type: 'boolean' },
    watch_paths: strList,
    ignore_watch: strList,
    watch_delay: ms,
    listen: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 64 },
    readiness: { anyOf: [PROBE_SCHEMA, { type: 'null' }] },
    liveness: { anyOf: [PROBE_SCHEMA, { type: 'null' }] },
    depends_on: { type: 'array', items: { type: 'string', pattern: APP_NAME_PATTERN }, maxItems: 256 },
    source: nullableStr,
    namespace: { type: 'string', pattern: APP_NAME_PATTERN }
  }
}
