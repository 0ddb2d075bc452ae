// @ts-check
// The app config's one field table: every key an app entry may carry, with what the daemon
// accepts (its schema), its default, how the CLI reads it, PM2's other names for it, its
// `sup start` flags, and whether a restart with flags may change it. Every other form is
// derived from it (fastify's one schema, validation and serialisation from it):
// ipc/app-config.js the defaults, the schema and the fixed keys (its AppConfig typedef is
// kept in step by test/unit/ipc/app-config.test.js); client/config/normalize.js the
// normaliser; client/config/start-options.js the flags and their help. A new key is one row.

/** @typedef {import('./schema.js').Schema} Schema */

/**
 * @typedef {'string' | 'boolean' | 'duration' | 'count' | 'bytes' | 'cores' | 'path' | 'enum' | 'user' | 'custom'} InputKind
 *   how the CLI reads the key (client/config/read-value.js); 'custom': normalize.js builds it
 *
 * @typedef {object} CliFlag a `sup start` flag that sets the key
 * @property {string} flags commander's spelling: '-i, --instances <n>', '--watch [paths]', '--no-autorestart'
 * @property {string} help one line for --help; the default of a flag that takes a value is added from the table
 * @property {string[]} [aliases] PM2's other long flags for it, declared as flags of their own
 * @property {(value: any) => unknown} [parse] commander's value to the entry's (undefined: not set)
 *
 * @typedef {object} AppField
 * @property {string} key its name in an ecosystem file and in AppConfig
 * @property {InputKind} input
 * @property {Schema} [schema] what the daemon accepts; absent for a key that is read and not kept
 * @property {unknown} [default] absent: always given or derived (name, script, cwd, exec_mode, ...)
 * @property {string[]} [aliases] PM2's other names for the key in an entry; the first one given wins
 * @property {boolean} [fixed] a restart with flags may not change it: it makes another app, or a scale
 * @property {CliFlag[]} [cli]
 */

/** Names become file names (logs) and CLI targets, so they are kept to a safe alphabet. */
export const APP_NAME_PATTERN = /^(?![.-])[A-Za-z0-9._-]{1,64}$/

const ms = /** @type {const} */ ({ type: 'integer', minimum: 0, maximum: 2 ** 31 - 1 })
const positiveMs = /** @type {const} */ ({ type: 'integer', minimum: 1, maximum: 2 ** 31 - 1 })
const str = /** @type {const} */ ({ type: 'string', maxLength: 4096 })
const nullableStr = /** @type {const} */ ({ anyOf: [str, { type: 'null' }] })
const bool = /** @type {const} */ ({ type: 'boolean' })
const strList = /** @type {const} */ ({ type: 'array', items: str, maxItems: 1024 })
const appName = /** @type {const} */ ({ type: 'string', pattern: APP_NAME_PATTERN })
/** A user or group: its name (as useradd allows) or its number. */
export const ACCOUNT_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_.-]{0,31}\$?$/
const account = /** @type {const} */ ({ anyOf: [{ type: 'string', pattern: ACCOUNT_NAME_PATTERN }, { type: 'integer', minimum: 0, maximum: 2 ** 32 - 2 }, { type: 'null' }] })

/** An environment: names without "=" (the kernel's separator), values of any text but NUL. */
export const ENV_RECORD = /** @type {const} */ ({
  type: 'record',
  keys: { type: 'string', minLength: 1, maxLength: 4096, pattern: /^[^=]+$/ },
  values: { type: 'string', maxLength: 1 << 20 }
})

/** @type {Schema} */
export const PROBE_SCHEMA = {
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
    period: positiveMs,
    timeout: positiveMs,
    failure_threshold: { type: 'integer', minimum: 1, maximum: 1000 },
    success_threshold: { type: 'integer', minimum: 1, maximum: 1000 }
  }
}
const probe = /** @type {const} */ ({ anyOf: [PROBE_SCHEMA, { type: 'null' }] })

/** A lone --no-x flag defaults to true in commander: only an explicit false is a setting. */
const onlyFalse = (/** @type {unknown} */ v) => v === false ? false : undefined
const commaList = (/** @type {unknown} */ v) => String(v).split(',').map((a) => a.trim()).filter(Boolean)

// PM2's defaults where PM2 has the key; kill_timeout is longer to give apps time to drain.
/** @type {readonly AppField[]} */
export const APP_FIELDS = [
  { key: 'name', input: 'custom', schema: appName, fixed: true, cli: [{ flags: '-n, --name <name>', help: 'app name (default: the script name)' }] },
  { key: 'script', input: 'custom', schema: { type: 'string', minLength: 1, maxLength: 4096 }, aliases: ['cmd', 'command'], fixed: true },
  { key: 'args', input: 'custom', schema: strList, default: [] },
  { key: 'cwd', input: 'custom', schema: { type: 'string', minLength: 1, maxLength: 4096 }, cli: [{ flags: '--cwd <dir>', help: 'working directory of the app' }] },
  { key: 'exec_mode', input: 'custom', schema: { type: 'string', enum: ['cluster', 'fork'] }, default: 'fork', fixed: true },
  { key: 'instances', input: 'custom', schema: { type: 'integer', minimum: 1, maximum: 1024 }, default: 1, fixed: true, cli: [{ flags: '-i, --instances <n>', help: 'number of workers: N, max, 0 (= max) or -N (CPUs minus N); node scripts run in cluster mode' }] },
  // read, not kept: it picks exec_mode
  { key: 'force_fork', input: 'boolean', default: false, fixed: true, cli: [{ flags: '-x, --fork-mode', help: 'fork mode even with -i' }] },
  { key: 'interpreter', input: 'custom', schema: nullableStr, default: null, aliases: ['exec_interpreter'], cli: [{ flags: '--interpreter <cmd>', help: 'run the script with this (python3, bash, none, ...); picked from the extension or shebang otherwise' }] },
  { key: 'runtime', input: 'custom', schema: nullableStr, default: null },
  { key: 'interpreter_args', input: 'custom', schema: strList, default: [], aliases: ['node_args', 'interpreterArgs'], cli: [{ flags: '--node-args <args>', aliases: ['--interpreter-args'], help: 'arguments for node (or the interpreter), e.g. "--max-old-space-size=512"' }] },
  { key: 'env', input: 'custom', schema: ENV_RECORD, default: {} },
  // PM2's uid/gid (user): who the workers run as; a root daemon only (daemon/worker/run-as.js)
  { key: 'uid', input: 'user', schema: account, default: null, aliases: ['user'], cli: [{ flags: '--uid <user>', aliases: ['--user'], help: 'run the workers as this user (name or number; the daemon must be root)' }] },
  { key: 'gid', input: 'user', schema: account, default: null, cli: [{ flags: '--gid <group>', help: 'run the workers with this group (name or number; default: the user\'s own)' }] },
  { key: 'instance_var', input: 'string', schema: { type: 'string', minLength: 1, maxLength: 256 }, default: 'NODE_APP_INSTANCE', cli: [{ flags: '--instance-var <name>', help: 'env var holding the instance number' }] },
  { key: 'increment_var', input: 'string', schema: nullableStr, default: null, cli: [{ flags: '--increment-var <name>', help: 'env var incremented per instance, e.g. PORT' }] },
  { key: 'wait_ready', input: 'boolean', schema: bool, default: false, cli: [{ flags: '--wait-ready', help: 'the app is ready when it calls process.send("ready")' }] },
  { key: 'listen_timeout', input: 'duration', schema: ms, default: 8000, cli: [{ flags: '--listen-timeout <ms>', help: 'how long to wait for listening/ready' }] },
  { key: 'kill_timeout', input: 'duration', schema: ms, default: 5000, cli: [{ flags: '--kill-timeout <ms>', help: 'how long a stopping worker gets before SIGKILL' }] },
  { key: 'shutdown_with_message', input: 'boolean', schema: bool, default: false, cli: [{ flags: '--shutdown-with-message', help: 'ask workers to stop with a "shutdown" message instead of SIGINT' }] },
  { key: 'max_restarts', input: 'count', schema: { type: 'integer', minimum: 0, maximum: 1e9 }, default: 16, cli: [{ flags: '--max-restarts <n>', help: 'fast exits (before --min-uptime) tolerated before the app is errored' }] },
  { key: 'min_uptime', input: 'duration', schema: ms, default: 1000, cli: [{ flags: '--min-uptime <ms>', help: 'uptime below which an exit counts as a crash loop' }] },
  { key: 'restart_delay', input: 'duration', schema: ms, default: 0, cli: [{ flags: '--restart-delay <ms>', help: 'wait this long before restarting a crashed worker' }] },
  { key: 'exp_backoff_restart_delay', input: 'duration', schema: ms, default: 0, cli: [{ flags: '--exp-backoff-restart-delay <ms>', help: 'exponential backoff starting at this delay, x1.5 each time up to 15 s (0: off)' }] },
  { key: 'autorestart', input: 'boolean', schema: bool, default: true, cli: [{ flags: '--no-autorestart', parse: onlyFalse, help: 'do not restart workers that exit' }] },
  { key: 'autostart', input: 'boolean', schema: bool, default: true, cli: [{ flags: '--no-autostart', parse: onlyFalse, help: 'register the app with its workers stopped (sup restart starts them)' }] },
  { key: 'vizion', input: 'boolean', schema: bool, default: true, cli: [{ flags: '--no-vizion', parse: onlyFalse, help: 'do not read the git revision of the app\'s folder (shown by sup describe)' }] },
  { key: 'stop_exit_codes', input: 'custom', schema: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 }, maxItems: 256 }, default: [], cli: [{ flags: '--stop-exit-codes <codes>', parse: (v) => String(v).split(',').map((c) => Number(c.trim())), help: 'exit codes that mean "done, do not restart" (comma-separated)' }] },
  { key: 'max_memory_restart', input: 'bytes', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] }, default: null, cli: [{ flags: '--max-memory-restart <size>', help: 'restart a worker past this memory, e.g. 200M' }] },
  // Limits the kernel enforces, per worker process and all it starts (its cgroup, docs/config.md#limits).
  { key: 'max_memory', input: 'bytes', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] }, default: null, aliases: ['memory_max'], cli: [{ flags: '--max-memory <size>', help: 'hard memory limit per worker (cgroup memory.max): past it the kernel OOM-kills the worker and sup restarts it, e.g. 512M' }] },
  { key: 'memory_high', input: 'bytes', schema: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] }, default: null, cli: [{ flags: '--memory-high <size>', help: 'memory above which the kernel throttles and reclaims a worker (cgroup memory.high), e.g. 400M' }] },
  { key: 'cpu_limit', input: 'cores', schema: { anyOf: [{ type: 'number', minimum: 0.01, maximum: 1024 }, { type: 'null' }] }, default: null, aliases: ['max_cpu'], cli: [{ flags: '--cpu-limit <cores>', aliases: ['--max-cpu'], help: 'CPU per worker in cores (cgroup cpu.max), e.g. 1.5, 50% or 500m' }] },
  { key: 'max_pids', input: 'count', schema: { anyOf: [{ type: 'integer', minimum: 1, maximum: 4194304 }, { type: 'null' }] }, default: null, cli: [{ flags: '--max-pids <n>', help: 'most processes and threads per worker (cgroup pids.max)' }] },
  { key: 'out_file', input: 'path', schema: nullableStr, default: null, aliases: ['output', 'out', 'out_log'], cli: [{ flags: '-o, --output <file>', help: 'stdout log file ("/dev/null" or NULL: none)' }] },
  { key: 'error_file', input: 'path', schema: nullableStr, default: null, aliases: ['error', 'err_file', 'err', 'err_log'], cli: [{ flags: '-e, --error <file>', help: 'stderr log file ("/dev/null" or NULL: none)' }] },
  { key: 'log_file', input: 'custom', schema: { anyOf: [str, bool, { type: 'null' }] }, default: null, aliases: ['log'], cli: [{ flags: '-l, --log [file]', help: 'one more file with stdout and stderr together (default $SUP_HOME/logs/<name>.log)' }] },
  // read, not kept: it sets the log files
  { key: 'disable_logs', input: 'boolean', default: false, cli: [{ flags: '--disable-logs', help: 'no log files (= -o /dev/null -e /dev/null); sup logs still shows recent lines' }] },
  { key: 'pid_file', input: 'path', schema: nullableStr, default: null, aliases: ['pid'], cli: [{ flags: '-p, --pid <file>', help: 'write each worker\'s pid to a file of its own: app.pid -> app-<id>.pid (PM2\'s naming), removed when it exits' }] },
  { key: 'merge_logs', input: 'boolean', schema: bool, default: false, aliases: ['combine_logs'], cli: [{ flags: '--merge-logs', help: 'one log file for all instances' }] },
  { key: 'time', input: 'boolean', schema: bool, default: false, cli: [{ flags: '--time', help: 'prefix log lines with a timestamp' }] },
  { key: 'log_date_format', input: 'string', schema: { anyOf: [{ type: 'string', maxLength: 256 }, { type: 'null' }] }, default: null, cli: [{ flags: '--log-date-format <format>', help: 'timestamp format for log lines, e.g. "YYYY-MM-DD HH:mm:ss Z" (implies --time)' }] },
  { key: 'log_type', input: 'enum', schema: { type: 'string', enum: ['raw', 'json'] }, default: 'raw', cli: [{ flags: '--log-type <type>', help: '"json" writes one JSON object per log line' }] },
  { key: 'log_max_size', input: 'bytes', schema: { anyOf: [{ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }, { type: 'null' }] }, default: null, cli: [{ flags: '--log-max-size <size>', help: 'rotate a log file when it reaches this size, e.g. 10M (0: never; default from the daemon, 10M)' }] },
  { key: 'log_retain', input: 'count', schema: { anyOf: [{ type: 'integer', minimum: 0, maximum: 100000 }, { type: 'null' }] }, default: null, cli: [{ flags: '--log-retain <n>', help: 'rotated log files kept per file (default from the daemon, 5)' }] },
  // Declared with its --no- twin, so unset stays undefined (the daemon's default applies).
  {
    key: 'log_compress',
    input: 'boolean',
    schema: { anyOf: [bool, { type: 'null' }] },
    default: null,
    cli: [{ flags: '--log-compress', help: 'gzip rotated log files' }, { flags: '--no-log-compress', help: 'do not gzip rotated log files, whatever the daemon\'s default' }]
  },
  { key: 'cron_restart', input: 'custom', schema: { anyOf: [{ type: 'string', maxLength: 256 }, { type: 'null' }] }, default: null, aliases: ['cron'], cli: [{ flags: '-c, --cron-restart <expr>', aliases: ['--cron'], help: 'restart on a cron schedule, e.g. "0 3 * * *" (6 fields: seconds first)' }] },
  { key: 'watch', input: 'custom', schema: bool, default: false, cli: [{ flags: '--watch [paths]', help: 'restart when files change: in the cwd, or in these paths (comma-separated)' }] },
  // set from watch
  { key: 'watch_paths', input: 'custom', schema: strList, default: [] },
  { key: 'ignore_watch', input: 'custom', schema: strList, default: [], cli: [{ flags: '--ignore-watch <paths>', help: 'globs or paths not to watch (comma- or space-separated); node_modules and .git never are' }] },
  { key: 'watch_delay', input: 'duration', schema: ms, default: 1000, cli: [{ flags: '--watch-delay <ms>', help: 'quiet time after the last change before restarting' }] },
  { key: 'listen', input: 'custom', schema: { type: 'array', items: { type: 'string', minLength: 1, maxLength: 200 }, maxItems: 64 }, default: [], fixed: true, cli: [{ flags: '--listen <addresses>', parse: commaList, help: 'fork mode: sockets the daemon binds and hands to every generation, e.g. 3000 or "127.0.0.1:8080,unix:/run/app.sock"' }] },
  // Cluster mode: how connections reach the workers (docs/realtime.md); rr and os stay the daemon's (ipc/balance.js)
  { key: 'balance', input: 'enum', schema: { type: 'string', enum: ['daemon', 'least-conn'] }, default: 'daemon', fixed: true, cli: [{ flags: '--balance <rr|os|least-conn>', parse: (v) => v === 'least-conn' ? v : undefined, help: 'cluster connections: "least-conn" (this app: to the worker holding the fewest), or the daemon\'s, fixed when it starts: "rr" (handed out round-robin, default) or "os" (workers accept them)' }] },
  { key: 'sticky', input: 'boolean', schema: bool, default: false, fixed: true, cli: [{ flags: '--sticky', help: 'cluster mode: a client\'s requests reach the same worker (socket.io\'s sid, --sticky-cookie, else its address)' }] },
  { key: 'sticky_cookie', input: 'string', schema: nullableStr, default: null, cli: [{ flags: '--sticky-cookie <name>', help: 'with --sticky: the cookie that names a session' }] },
  { key: 'trust_proxy', input: 'boolean', schema: bool, default: false, cli: [{ flags: '--trust-proxy', help: 'with --sticky: a proxy of the app\'s own is in front, the client is X-Forwarded-For\'s first address' }] },
  { key: 'readiness', input: 'custom', schema: probe, default: null },
  { key: 'liveness', input: 'custom', schema: probe, default: null },
  { key: 'depends_on', input: 'custom', schema: { type: 'array', items: appName, maxItems: 256 }, default: [] },
  // set by sup: the config file the app came from
  { key: 'source', input: 'custom', schema: nullableStr, default: null, fixed: true },
  { key: 'namespace', input: 'custom', schema: appName, default: 'default', fixed: true, cli: [{ flags: '--namespace <ns>', help: 'put the app in this namespace (a target for all its apps)' }] }
]

/** The fields AppConfig keeps, in its key order. */
export const STORED_FIELDS = APP_FIELDS.filter((field) => field.schema !== undefined)

/** @type {ReadonlyMap<string, AppField>} */
const BY_KEY = new Map(APP_FIELDS.map((field) => [field.key, field]))

/**
 * @param {string} key
 * @returns {AppField}
 */
export function fieldOf (key) {
  const field = BY_KEY.get(key)
  if (!field) throw new Error(`"${key}" is not in the app field table (ipc/app-fields.js)`)
  return field
}
