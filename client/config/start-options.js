// @ts-check
// The options of `sup start` (and of `sup-runtime`, which takes the same ones): one row per
// flag, read by client/cli.js and client/runtime-args.js to declare them and by
// client/config/build.js to turn the parsed flags into a PM2-style app entry. Dependency-free
// (commander is passed in), so that `sup ls`, which never loads this module, stays fast.
//
// Adding a flag is one row below: `flags` as commander spells them, `help`, and `key`, the app
// config key (ipc/app-config.js, the ecosystem file's name for it) the value goes to, or null
// when the flag is not an app setting (the caller reads it from the parsed options). Optional:
// `aliases`, PM2's other spellings of the same flag (declared as flags of their own, "alias of
// --x", the value taken from the first one given), and `parse`, when commander's value is not
// what normalizeApp (client/config/normalize.js) takes. normalizeApp validates every value, as
// it does for config files, so a new key is checked there.

/**
 * @typedef {object} StartOption
 * @property {string} flags commander's spelling: '-i, --instances <n>', '--watch [paths]', '--no-autorestart'
 * @property {string} help one line for --help
 * @property {string | null} key the app config key it sets, or null when it is not an app setting
 * @property {string[]} [aliases] other long flags for the same option (PM2's spellings), e.g. ['--cron']
 * @property {(value: any) => unknown} [parse] commander's value to the config value (undefined: not set)
 */

/** @type {readonly StartOption[]} */
export const START_OPTIONS = [
  { flags: '-i, --instances <n>', key: 'instances', help: 'number of workers: N, max, 0 (= max) or -N (CPUs minus N); node scripts run in cluster mode' },
  { flags: '-n, --name <name>', key: 'name', help: 'app name (default: the script name)' },
  { flags: '-x, --fork-mode', key: 'force_fork', help: 'fork mode even with -i' },
  { flags: '--interpreter <cmd>', key: 'interpreter', help: 'run the script with this (python3, bash, none, ...); picked from the extension or shebang otherwise' },
  { flags: '--node-args <args>', key: 'interpreter_args', aliases: ['--interpreter-args'], help: 'arguments for node (or the interpreter), e.g. "--max-old-space-size=512"' },
  { flags: '--cwd <dir>', key: 'cwd', help: 'working directory of the app' },
  { flags: '--namespace <ns>', key: 'namespace', help: 'put the app in this namespace (a target for all its apps; default "default")' },
  { flags: '--env <name>', key: null, help: 'with a config file: apply env_<name>' },
  { flags: '--only <names>', key: null, help: 'with a config file: only these apps (comma-separated)' },
  { flags: '--wait-ready', key: 'wait_ready', help: 'the app is ready when it calls process.send("ready")' },
  { flags: '--listen <addresses>', key: 'listen', parse: (v) => String(v).split(',').map((a) => a.trim()).filter(Boolean), help: 'fork mode: sockets the daemon binds and hands to every generation, e.g. 3000 or "127.0.0.1:8080,unix:/run/app.sock"' },
  { flags: '--listen-timeout <ms>', key: 'listen_timeout', help: 'how long to wait for listening/ready' },
  { flags: '--kill-timeout <ms>', key: 'kill_timeout', help: 'how long a stopping worker gets before SIGKILL (default 5000)' },
  { flags: '--shutdown-with-message', key: 'shutdown_with_message', help: 'ask workers to stop with a "shutdown" message instead of SIGINT' },
  { flags: '--max-memory-restart <size>', key: 'max_memory_restart', help: 'restart a worker past this memory, e.g. 200M' },
  { flags: '--max-restarts <n>', key: 'max_restarts', help: 'fast exits (before --min-uptime) tolerated before the app is errored (default 16)' },
  { flags: '--min-uptime <ms>', key: 'min_uptime', help: 'uptime below which an exit counts as a crash loop (default 1000)' },
  { flags: '--restart-delay <ms>', key: 'restart_delay', help: 'wait this long before restarting a crashed worker' },
  { flags: '--exp-backoff-restart-delay <ms>', key: 'exp_backoff_restart_delay', help: 'exponential backoff starting at this delay (x1.5, capped at 15 s)' },
  // A lone --no-x flag defaults to true in commander: only an explicit false is a setting.
  { flags: '--no-autorestart', key: 'autorestart', parse: (v) => v === false ? false : undefined, help: 'do not restart workers that exit' },
  { flags: '--no-autostart', key: 'autostart', parse: (v) => v === false ? false : undefined, help: 'register the app with its workers stopped (sup restart starts them)' },
  { flags: '--no-vizion', key: 'vizion', parse: (v) => v === false ? false : undefined, help: 'do not read the git revision of the app\'s folder (shown by sup describe)' },
  { flags: '--stop-exit-codes <codes>', key: 'stop_exit_codes', parse: (v) => String(v).split(',').map((c) => Number(c.trim())), help: 'exit codes that mean "done, do not restart" (comma-separated)' },
  { flags: '-c, --cron-restart <expr>', key: 'cron_restart', aliases: ['--cron'], help: 'restart on a cron schedule, e.g. "0 3 * * *" (6 fields: seconds first)' },
  { flags: '--watch [paths]', key: 'watch', help: 'restart when files change: in the cwd, or in these paths (comma-separated)' },
  { flags: '--ignore-watch <paths>', key: 'ignore_watch', help: 'globs or paths not to watch (comma- or space-separated); node_modules and .git never are' },
  { flags: '--watch-delay <ms>', key: 'watch_delay', help: 'quiet time after the last change before restarting (default 1000)' },
  { flags: '-o, --output <file>', key: 'out_file', help: 'stdout log file ("/dev/null" or NULL: none)' },
  { flags: '-e, --error <file>', key: 'error_file', help: 'stderr log file ("/dev/null" or NULL: none)' },
  { flags: '-l, --log [file]', key: 'log_file', help: 'one more file with stdout and stderr together (default $SUP_HOME/logs/<name>.log)' },
  { flags: '--disable-logs', key: 'disable_logs', help: 'no log files (= -o /dev/null -e /dev/null); sup logs still shows recent lines' },
  { flags: '--merge-logs', key: 'merge_logs', help: 'one log file for all instances' },
  { flags: '--time', key: 'time', help: 'prefix log lines with a timestamp' },
  { flags: '--log-date-format <format>', key: 'log_date_format', help: 'timestamp format for log lines, e.g. "YYYY-MM-DD HH:mm:ss Z" (implies --time)' },
  { flags: '--log-type <type>', key: 'log_type', help: '"json" writes one JSON object per log line' },
  { flags: '--log-max-size <size>', key: 'log_max_size', help: 'rotate a log file when it reaches this size, e.g. 10M (0: never; default from the daemon, 10M)' },
  { flags: '--log-retain <n>', key: 'log_retain', help: 'rotated log files kept per file (default from the daemon, 5)' },
  // Declared with its --no- twin, so unset stays undefined (the daemon's default applies).
  { flags: '--log-compress', key: 'log_compress', help: 'gzip rotated log files' },
  { flags: '--no-log-compress', key: 'log_compress', help: 'do not gzip rotated log files, whatever the daemon\'s default' },
  { flags: '-p, --pid <file>', key: 'pid_file', help: 'write each worker\'s pid to a file of its own: app.pid -> app-<id>.pid (PM2\'s naming), removed when it exits' },
  { flags: '--instance-var <name>', key: 'instance_var', help: 'env var holding the instance number (default NODE_APP_INSTANCE)' },
  { flags: '--increment-var <name>', key: 'increment_var', help: 'env var incremented per instance, e.g. PORT' },
  { flags: '--balance <rr|os>', key: null, help: 'cluster connections: "rr" (the daemon hands them out round-robin, default) or "os" (workers accept them); fixed when the daemon starts' }
]

/**
 * Declare every start option (and its aliases) on a commander command.
 * @param {import('commander').Command} command
 * @param {readonly StartOption[]} [options]
 */
export function declareStartOptions (command, options = START_OPTIONS) {
  for (const option of options) {
    command.option(option.flags, option.help)
    const long = longFlag(option.flags)
    const value = option.flags.slice(option.flags.indexOf(long) + long.length)
    for (const alias of option.aliases ?? []) command.option(`${alias}${value}`, `alias of ${long}`)
  }
}

/**
 * The parsed flags as a PM2-style app entry: each row's value (or its first alias given) under
 * its config key, `parse`d; flags not given are left out so config defaults apply.
 * @param {Record<string, any>} opts commander's parsed options
 * @param {readonly StartOption[]} [options]
 * @returns {Record<string, unknown>}
 */
export function appEntryFromFlags (opts, options = START_OPTIONS) {
  /** @type {Record<string, unknown>} */
  const entry = {}
  for (const option of options) {
    if (option.key === null) continue
    let value
    for (const flag of [longFlag(option.flags), ...option.aliases ?? []]) value ??= opts[attributeName(flag)]
    if (value !== undefined && option.parse) value = option.parse(value)
    if (value !== undefined) entry[option.key] = value
  }
  return entry
}

/**
 * The long flag of a commander spelling: '-i, --instances <n>' -> '--instances'.
 * @param {string} flags
 */
export function longFlag (flags) {
  const long = flags.split(/[ ,|]+/).find((part) => part.startsWith('--'))
  if (!long) throw new Error(`start option "${flags}" has no long flag`)
  return long
}

/**
 * Where commander puts a flag's value, as it names it: '--no-log-compress' -> 'logCompress'.
 * @param {string} long
 */
export function attributeName (long) {
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}
