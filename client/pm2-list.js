// @ts-check
// `sup jlist` / `sup prettylist` in PM2's shape (design §10): tools and scripts written for PM2
// parse `pm2 jlist` (`.[].pm2_env.status`, `.pm2_env.restart_time`, `.monit.memory`, `pm_id`,
// `pm2_env.pm_out_log_path`…). Only the keys PM2 7 prints that sup has a value for; `ls --json`
// stays sup's own contract.
import path from 'node:path'

/** sup's status words as PM2 spells the same states (its constants.js); the rest are the same. */
const PM2_STATUS = /** @type {Record<string, string>} */ ({ starting: 'launching', waiting: 'waiting restart' })

/** Settings PM2 keeps in pm2_env under the same name and meaning as sup's config. */
const SHARED_KEYS = /** @type {const} */ ([
  'namespace', 'instances', 'args', 'autorestart', 'autostart', 'watch', 'ignore_watch', 'merge_logs',
  'log_date_format', 'max_memory_restart', 'kill_timeout', 'listen_timeout', 'wait_ready',
  'shutdown_with_message', 'max_restarts', 'min_uptime', 'restart_delay', 'exp_backoff_restart_delay',
  'stop_exit_codes', 'cron_restart', 'instance_var', 'increment_var', 'vizion'
])

/**
 * One entry of `pm2 jlist` for a worker.
 * @param {import('../ipc/methods.js').WorkerRow} row
 * @param {any} app its app's `app.describe` answer (config, log paths, settings, versioning)
 * @param {number} now
 */
export function toPm2 (row, app, now = Date.now()) {
  const { config } = app
  const logs = logPaths(app.logs, config, row.instance)
  /** @type {Record<string, unknown>} */
  const env = { ...config.env, ...app.settings }
  if (config.increment_var && env[config.increment_var] !== undefined) {
    env[config.increment_var] = Number(env[config.increment_var]) + row.instance
  }
  const interpreter = config.interpreter === null ? 'node' : config.interpreter
  const shared = Object.fromEntries(SHARED_KEYS.filter((key) => config[key] !== undefined && config[key] !== null).map((key) => [key, config[key]]))
  return {
    pid: row.pid ?? 0,
    name: row.name,
    pm2_env: {
      // PM2 puts the app's variables at the top of pm2_env too, and again under env.
      ...env,
      ...shared,
      [config.instance_var]: row.instance,
      name: row.name,
      namespace: row.namespace,
      pm_exec_path: config.script,
      pm_cwd: config.cwd,
      exec_interpreter: path.basename(interpreter),
      exec_mode: `${row.mode}_mode`,
      node_args: config.interpreter_args,
      pm_out_log_path: logs.out,
      pm_err_log_path: logs.err,
      ...(logs.combined ? { pm_log_path: logs.combined } : {}),
      ...(config.pid_file ? { pm_pid_path: config.pid_file.replace(/(-\d+)?\.pid$/, '') + `-${row.id}.pid` } : {}),
      status: PM2_STATUS[row.status] ?? row.status,
      pm_uptime: now - row.uptime,
      restart_time: row.restarts,
      unstable_restarts: row.unstable_restarts,
      pm_id: row.id,
      versioning: app.versioning ?? null,
      env
    },
    pm_id: row.id,
    monit: { memory: row.memory, cpu: row.cpu }
  }
}

/**
 * The files one instance writes, picked from describe's list by the daemon's naming
 * (docs/logs.md): `<name>-out.log` or `<name>-out-<instance>.log`, the error log as `-err` or,
 * in PM2's home, `-error`; a given file or `<file>-<instance>.<ext>`.
 * @param {string[]} paths every log file of the app
 * @param {any} config
 * @param {number} instance
 */
function logPaths (paths, config, instance) {
  /** @param {string | null | true} given @param {string[]} kinds */
  const pick = (given, kinds) => {
    if (typeof given === 'string') {
      const ext = path.extname(given)
      const numbered = `${given.slice(0, given.length - ext.length)}-${instance}${ext}`
      return paths.find((p) => p === numbered) ?? paths.find((p) => p === given) ?? given
    }
    for (const kind of kinds) {
      const base = kind === '' ? `/${config.name}` : `/${config.name}-${kind}`
      const found = paths.find((p) => p.endsWith(`${base}-${instance}.log`)) ?? paths.find((p) => p.endsWith(`${base}.log`))
      if (found) return found
    }
    return null
  }
  return {
    out: pick(config.out_file, ['out']),
    err: pick(config.error_file, ['error', 'err']),
    combined: config.log_file === null || config.log_file === false ? null : pick(config.log_file, [''])
  }
}
