// @ts-check
// `pm2 prettylist` / `pm2 jlist` for the PM2 e2e measurement: sup's workers rendered in the
// shape PM2's scripts grep (`status: 'online'`, `restart_time: 1`, `NODE_APP_INSTANCE: 0`,
// env vars at the top of pm2_env and again under pm2_env.env). Only what sup knows is shown;
// nothing here feeds sup itself.
import path from 'node:path'
import util from 'node:util'
import { connectDaemon } from '../../client/daemon.js'
import { resolvePaths } from '../../ipc/paths.js'

/** sup's status words as PM2 spells the same states (its constants.js); the rest are the same. */
const PM2_STATUS = /** @type {Record<string, string>} */ ({ starting: 'launching', waiting: 'waiting restart' })

const mode = process.argv[2] === 'jlist' ? 'jlist' : 'prettylist'
const list = await collect()
process.stdout.write(mode === 'jlist' ? JSON.stringify(list) : util.inspect(list, false, null, false))

async function collect () {
  const paths = resolvePaths()
  let conn
  try {
    conn = await connectDaemon(paths)
  } catch {
    return []
  }
  try {
    /** @type {any[]} */
    const rows = await conn.request('app.list')
    /** @type {Map<string, any>} */
    const apps = new Map()
    for (const name of new Set(rows.map((row) => row.name))) {
      apps.set(name, await conn.request('app.describe', { target: name }))
    }
    return rows.map((row) => toPm2(row, apps.get(row.name)))
  } finally {
    await conn.close()
  }
}

/**
 * @param {any} row a WorkerRow
 * @param {any} app its app's describe answer: config and log file paths
 */
function toPm2 (row, app) {
  const { config } = app
  const logs = logPaths(app.logs, config, row.instance)
  /** @type {Record<string, unknown>} */
  const env = { ...config.env, ...app.settings }
  if (config.increment_var && env[config.increment_var] !== undefined) {
    env[config.increment_var] = Number(env[config.increment_var]) + row.instance
  }
  const interpreter = config.interpreter === null ? 'node' : config.interpreter
  return {
    pid: row.pid ?? 0,
    name: row.name,
    pm2_env: {
      ...env,
      [config.instance_var]: row.instance,
      pm_exec_path: config.script,
      pm_cwd: config.cwd,
      exec_interpreter: path.basename(interpreter),
      exec_mode: `${row.mode}_mode`,
      instances: config.instances,
      node_args: config.interpreter_args,
      args: config.args,
      autorestart: config.autorestart,
      watch: config.watch,
      pm_out_log_path: logs.out,
      pm_err_log_path: logs.err,
      pm_log_path: logs.combined,
      merge_logs: config.merge_logs,
      log_date_format: config.log_date_format,
      max_memory_restart: config.max_memory_restart,
      status: PM2_STATUS[row.status] ?? row.status,
      pm_uptime: Date.now() - row.uptime,
      restart_time: row.restarts,
      unstable_restarts: row.unstable_restarts,
      pm_id: row.id,
      namespace: row.namespace,
      vizion: config.vizion,
      versioning: app.versioning ?? null,
      env
    },
    pm_id: row.id,
    monit: { memory: row.memory, cpu: row.cpu }
  }
}

/**
 * The files one instance writes, picked from describe's list by sup's naming (logs.md):
 * `<name>-out.log` or `<name>-out-<instance>.log`, a given file or `<file>-<instance>.<ext>`.
 * @param {string[]} paths every log file of the app
 * @param {any} config
 * @param {number} instance
 */
function logPaths (paths, config, instance) {
  /** @param {string | null | true} given @param {string} kind */
  const pick = (given, kind) => {
    if (typeof given === 'string') {
      const ext = path.extname(given)
      const numbered = `${given.slice(0, given.length - ext.length)}-${instance}${ext}`
      return paths.find((p) => p === numbered) ?? paths.find((p) => p === given) ?? given
    }
    const base = kind === 'log' ? `/${config.name}` : `/${config.name}-${kind}`
    return paths.find((p) => p.endsWith(`${base}-${instance}.log`)) ?? paths.find((p) => p.endsWith(`${base}.log`)) ?? null
  }
  return {
    out: pick(config.out_file, 'out'),
    err: pick(config.error_file, 'err'),
    combined: config.log_file === null || config.log_file === false ? undefined : pick(config.log_file, 'log')
  }
}
