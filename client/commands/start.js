// @ts-check
// sup start <script|config>: normalise the apps here (paths resolve against the caller's
// cwd), then hand them to the daemon and report each worker as it comes up. As in PM2, what
// exists already is restarted: an app named by the word (`sup start api`, `sup start 0`),
// the apps of a config file that run (the others start), a stopped app of the same script.
import { extname } from 'node:path'
import { parseBalance } from '../../ipc/balance.js'
import { SupError } from '../../ipc/errors.js'
import { buildConfigs, buildUpdate } from '../config/build.js'
import { appEntryFromFlags } from '../config/start-options.js'
import { isConfigFile } from '../config/load-file.js'
import { connectDaemon } from '../daemon.js'
import { paintStatus, renderLogWarnings, renderWorkers } from '../format.js'
import { stringEnv } from '../shell-env.js'

/**
 * @param {string} target
 * @param {string[]} args
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, args, { paths, io, opts }) {
  const balance = wantedBalance(opts, io.env)
  const configFile = isConfigFile(target)
  // A word that may name an app (PM2: a number, or no "/" and no extension): its flags are
  // checked before the daemon is asked whether it does.
  const named = !configFile && args.length === 0 && (/^\d+$/.test(target) || (!target.includes('/') && extname(target) === ''))
  const update = named ? buildUpdate(opts, io.cwd) : undefined
  const configs = named ? null : await buildConfigs(target, args, opts, io.cwd)
  const conn = await connectDaemon(paths, { start: true, daemonEnv: balance ? { SUP_BALANCE: balance } : {} })
  try {
    if (balance) await checkBalance(conn, balance)
    if (named) {
      const restarted = await restartNamed(conn, target, { update, toggleWatch: opts.watch !== undefined, cwd: io.cwd })
      if (restarted) {
        if (!opts.json) io.out(`restarted ${[...new Set(restarted.map((r) => r.name))].join(', ')} (it exists already: sup start of an app restarts it)`)
        return report(restarted, new Set(), io, opts)
      }
    }
    return await startApps(conn, configs ?? await buildConfigs(target, args, opts, io.cwd), { io, opts, configFile })
  } finally {
    await conn.close()
  }
}

/**
 * `sup start <name|id|namespace>` of what exists: a restart (with the flags' settings; --watch
 * toggles, as PM2's). Null when the word names nothing: then it is a script to start.
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {string} target
 * @param {{ update: Record<string, unknown> | undefined, toggleWatch: boolean, cwd: string }} options
 * @returns {Promise<import('../../ipc/methods.js').WorkerRow[] | null>}
 */
async function restartNamed (conn, target, { update, toggleWatch, cwd }) {
  try {
    return await conn.request('app.restart', { targets: [target], cwd, ...(update ? { update } : {}), ...(toggleWatch ? { toggleWatch } : {}) })
  } catch (err) {
    const code = /** @type {{ code?: string }} */ (err).code
    if (code === 'SUP_ERR_APP_NOT_FOUND' || code === 'SUP_ERR_APP_NONE') return null
    throw err
  }
}

/**
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {import('../../ipc/app-config.js').AppConfig[]} configs
 * @param {{ io: import('../cli.js').CliIo, opts: Record<string, any>, configFile: boolean }} options
 */
async function startApps (conn, configs, { io, opts, configFile }) {
  /** @type {Set<string>} */
  const running = new Set(configFile ? (await conn.request('app.list')).map((/** @type {{ name: string }} */ r) => r.name) : [])
  if (!opts.json) {
    for (const config of configs) {
      const size = `${config.exec_mode} mode, ${config.instances} worker${config.instances > 1 ? 's' : ''}`
      io.out(running.has(config.name) ? `restarting ${config.name} with the file's settings (${size})` : `starting ${config.name} (${size})`)
    }
    // Rows also change for other reasons (a log file failing): print state changes only.
    /** @type {Map<number, string>} */
    const shown = new Map()
    conn.onEvents({
      'app.state': (row) => {
        if (row.status === 'starting' || shown.get(row.id) === `${row.status} ${row.pid}`) return
        shown.set(row.id, `${row.status} ${row.pid}`)
        io.out(`  ${row.name}[${row.instance}] ${paintStatus(row.status)}${row.pid ? ` (pid ${row.pid})` : ''}`)
      }
    })
    await conn.request('subscribe', { topics: ['app.state'], apps: configs.map((c) => c.name) })
  }
  // A config file restarts its apps that run, with the file's settings and the caller's
  // environment (PM2's start and restart of a file); a script start may revive a stopped app
  // of that script with the settings of the flags given.
  const given = configFile ? {} : { given: [...Object.keys(appEntryFromFlags(opts)), ...(configs[0]?.args.length ? ['args'] : [])] }
  /** @type {import('../../ipc/methods.js').WorkerRow[]} */
  const rows = await conn.request('app.start', { apps: configs, shellEnv: stringEnv(io.env), ...(configFile ? { existing: 'restart' } : given) })
  // Apps left unstarted because what they depend on was not ready: they never ran.
  const blocked = configs.filter((c) => c.depends_on?.length > 0 && rows.some((r) => r.name === c.name) &&
    rows.filter((r) => r.name === c.name).every((r) => r.status === 'stopped' && r.last_exit === null))
  for (const c of blocked) io.err(`sup: ${c.name} was not started: what it depends on (${c.depends_on.join(', ')}) was not ready in time (sup restart ${c.name} starts it)`)
  // an app with autostart: false is meant to be stopped
  return report(rows, new Set(configs.filter((c) => !c.autostart).map((c) => c.name)), io, opts)
}

/**
 * The workers, and on stderr those that did not come online; the exit code.
 * @param {import('../../ipc/methods.js').WorkerRow[]} rows
 * @param {Set<string>} held apps meant to stay stopped (autostart: false)
 * @param {import('../cli.js').CliIo} io
 * @param {Record<string, any>} opts
 */
function report (rows, held, io, opts) {
  if (opts.json) io.out(JSON.stringify(rows))
  else io.out([renderWorkers(rows), ...renderLogWarnings(rows)].join('\n'))
  const failed = rows.filter((r) => r.status === 'errored' || (r.status === 'stopped' && !held.has(r.name)))
  if (failed.length > 0) {
    const names = [...new Set(failed.map((r) => r.name))]
    io.err(`sup: ${failed.length} worker(s) of ${names.join(', ')} did not come online (sup logs ${names[0]} --nostream shows why)`)
    return 1
  }
  const retried = rows.filter((r) => r.status === 'waiting' && !held.has(r.name))
  if (retried.length > 0 && !opts.json) {
    const names = [...new Set(retried.map((r) => r.name))]
    io.err(`sup: ${retried.length} worker(s) of ${names.join(', ')} exited and will be started again (sup logs ${names[0]} --nostream shows why, sup ls follows)`)
  }
  const waiting = rows.filter((r) => r.status !== 'online' && r.status !== 'waiting' && !held.has(r.name))
  if (waiting.length > 0 && !opts.json) io.err(`sup: ${waiting.length} worker(s) not online yet (sup ls to follow)`)
  return 0
}

/**
 * The balancing asked for: --balance, else SUP_BALANCE; null when neither says.
 * @param {Record<string, any>} opts
 * @param {NodeJS.ProcessEnv} env
 */
function wantedBalance (opts, env) {
  if (opts.balance !== undefined) return parseBalance(opts.balance, '--balance')
  return env.SUP_BALANCE ? parseBalance(env.SUP_BALANCE, 'SUP_BALANCE') : null
}

/**
 * A running daemon keeps the balancing it started with (Node fixes it at the first fork):
 * say so rather than start workers balanced otherwise than asked.
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {string} wanted
 */
async function checkBalance (conn, wanted) {
  const info = await conn.request('daemon.ping')
  if (info.balance !== wanted) throw new SupError('SUP_ERR_DAEMON_BALANCE_MISMATCH', { home: info.home, daemon: info.balance, wanted })
}
