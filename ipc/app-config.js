// @ts-check
// The normalised app config: what the CLI sends in app.start and what the daemon keeps.
// It is immutable once validated; runtime state (pid, status, restarts) lives elsewhere. Its
// forms all come from the one field table in ./app-fields.js; the typedef below is kept in
// step with it by test/unit/ipc/app-config.test.js (same keys, same order, same types).
import { APP_FIELDS, STORED_FIELDS } from './app-fields.js'

/**
 * @typedef {object} AppConfig
 * @property {string} name
 * @property {string} script absolute path, or a command found on PATH
 * @property {string[]} args
 * @property {string} cwd absolute
 * @property {'cluster' | 'fork'} exec_mode
 * @property {number} instances
 * @property {string | null} interpreter null runs the script with node (which one: `runtime`); else another program (python3, bun, ...) or "none"
 * @property {string | null} runtime the node a node app asks for: a path or "node@22"; null = `.nvmrc` / `.node-version` in its cwd, else the daemon's own (docs/config.md#interpreter)
 * @property {string[]} interpreter_args node args for node apps, interpreter args otherwise
 * @property {Record<string, string>} env the app's own env (config + --env), not the caller's shell
 * @property {string | number | null} uid the user its workers run as (a root daemon only); null: the daemon's
 * @property {string | number | null} gid their group; null: the user's own (or the daemon's)
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
 * @property {number | null} max_memory bytes: each worker's hard memory limit (cgroup memory.max)
 * @property {number | null} memory_high bytes: where the kernel throttles and reclaims (cgroup memory.high)
 * @property {number | null} cpu_limit cores: each worker's CPU time per period (cgroup cpu.max)
 * @property {number | null} max_pids each worker's processes and threads (cgroup pids.max)
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
 * @property {'daemon' | 'least-conn'} balance cluster mode: "least-conn" routes this app's connections to the worker holding the fewest; "daemon": the daemon's rr or os (ipc/balance.js)
 * @property {boolean} sticky cluster mode: a client's requests reach the same worker (docs/realtime.md)
 * @property {string | null} sticky_cookie with sticky: the cookie whose value names a session
 * @property {boolean} trust_proxy with sticky: X-Forwarded-For's first address is the client's
 * @property {ProbeConfig | null} readiness a worker is ready (online, given connections) once this passes (docs/probes.md)
 * @property {ProbeConfig | null} liveness a worker whose probe fails `failure_threshold` times in a row is restarted
 * @property {string[]} depends_on apps that must be ready before this one starts
 * @property {string | null} source the config file it came from
 * @property {string} namespace a group of apps that one CLI target names ("default" unless set)
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

export { APP_NAME_PATTERN, ENV_RECORD } from './app-fields.js'

/** Every key AppConfig holds but name, script and cwd, with its default (ipc/app-fields.js). */
export const APP_DEFAULTS = /** @type {Readonly<Omit<AppConfig, 'name' | 'script' | 'cwd'>>} */ (Object.freeze(Object.fromEntries(
  STORED_FIELDS.filter((field) => 'default' in field).map((field) => [field.key, field.default])
)))

/** @type {import('./schema.js').Schema} */
export const APP_CONFIG_SCHEMA = {
  type: 'object',
  required: STORED_FIELDS.map((field) => field.key),
  properties: Object.fromEntries(STORED_FIELDS.map((field) => [field.key, /** @type {import('./schema.js').Schema} */ (field.schema)]))
}

/**
 * Keys a restart with flags (`sup start api --time`, `sup restart api --node-args ...`) may not
 * change: they make another app (name, script, ...), or a scale (instances). The CLI does not
 * send them as an update; the daemon does not take them.
 */
export const APP_FIXED_KEYS = Object.freeze(APP_FIELDS.filter((field) => field.fixed).map((field) => field.key))
