// @ts-check
// sup start <script|config|-...>: normalise the apps here (paths resolve against the caller's
// cwd), then hand them to the daemon and report each worker as it comes up. As in PM2, what
// exists already is restarted: an app named by the word (`sup start api`, `sup start 0`),
// the apps of a config file that run (the others start), a stopped app of the same script.
import { splitIntoParts } from '../app-parts.js'
import { extname } from 'node:path'
import { daemonBalanceOfFlag, parseBalance } from '../../ipc/balance.js'
import { SupError } from '../../ipc/errors.js'
import { buildConfigs, buildUpdate, warnOnce } from '../config/build.js'
import { isConfigFile } from '../config/load-file.js'
import { appEntryFromFlags } from '../config/start-options.js'
import { connectDaemon } from '../daemon.js'
import { paintStatus, renderLogWarnings, renderWorkers } from '../format.js'
import { stringEnv } from '../shell-env.js'

/** What `sup start` with no target starts, as PM2's `pm2 start` does. */
export const DEFAULT_CONFIG = 'ecosystem.config.js'

/**
 * @param {string[]} targets scripts, config files or "-" (a config on stdin), each started as
 *   PM2 starts several (`pm2 start a.js b.js`); none: ecosystem.config.js
 * @param {string[]} args the scripts' arguments (after --), given to every script
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (targets, args, { paths, io, opts }) {
  const balance = wantedBalance(opts, io.env)
  const list = targets.length > 0 ? targets : [DEFAULT_CONFIG]
  const warn = warnOnce(io)
  if (!list.some((t) => t === '-' || isConfigFile(t))) {
    for (const flag of /** @type {const} */ (['only', 'env'])) if (opts[flag] !== undefined) warn(`--${flag} applies to the apps of a config file; ignored`)
  }
  // A word that may name an app (PM2: a number, or no "/" and no extension) is asked about
  // first; -f always starts a copy. Its flags are checked before the daemon is asked.
  const named = opts.force || args.length > 0 ? [] : list.filter((t) => /^\d+$/.test(t) || (t !== '-' && !t.includes('/') && extname(t) === ''))
  const update = named.length > 0 ? buildUpdate(opts, io.cwd) : undefined
  let configs = await buildAll(list.filter((t) => !named.includes(t)), args, opts, io.cwd, warn)
  const conn = await connectDaemon(paths, { start: true, daemonEnv: balance ? { SUP_BALANCE: balance } : {} })
  try {
    if (balance) await checkBalance(conn, balance)
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const restarted = []
    /** @type {string[]} */
    const unknown = []
    for (const target of named) {
      const rows = await restartNamed(conn, target, { update, toggleWatch: opts.watch !== undefined, cwd: io.cwd })
      if (rows) restarted.push(...rows)
      else unknown.push(target)
    }
    if (restarted.length > 0 && !opts.json) io.out(`restarted ${[...new Set(restarted.map((r) => r.name))].join(', ')} (it exists already: sup start of an app restarts it)`)
    // A word that names no app is a script (or a command) to start after all.
    if (unknown.length > 0) configs = [...configs, ...await buildAll(unknown, args, opts, io.cwd, warn)]
    if (configs.length === 0) return report(restarted, [], io, opts)
    /** @type {Set<string>} */
    const running = new Set((await conn.request('app.list')).map((/** @type {{ name: string }} */ r) => r.name))
    const { fresh, joining } = opts.force ? splitForced(running, configs) : { fresh: configs, joining: [] }
    if (!opts.json) {
      for (const config of fresh) {
        const size = `${config.exec_mode} mode, ${config.instances} worker${config.instances > 1 ? 's' : ''}`
        io.out(running.has(config.name) && fromFile.has(config) ? `restarting ${config.name} with the file's settings (${size})` : `starting ${config.name} (${size})`)
      }
      for (const config of joining) io.out(`starting another copy of ${config.name} (-f): ${config.instances} more worker${config.instances > 1 ? 's' : ''}`)
      // Rows also change for other reasons (a log file failing): print state changes only.
      /** @type {Map<number, string>} */
      const shown = new Map()
      const wanted = new Set(configs.map((c) => c.name))
      conn.onEvents({
        'app.state': (row) => {
          if (!wanted.has(row.name) || row.status === 'starting' || shown.get(row.id) === `${row.status} ${row.pid}`) return
          shown.set(row.id, `${row.status} ${row.pid}`)
          io.out(`  ${row.name}[${row.instance}] ${paintStatus(row.status)}${row.pid ? ` (pid ${row.pid})` : ''}`)
        }
      })
      // Past the list a subscription takes (1024 names), every app's changes, these printed.
      const names = configs.map((c) => c.name)
      await conn.request('subscribe', { topics: ['app.state'], apps: names.length <= 1024 ? names : [] })
    }
    const shellEnv = stringEnv(io.env)
    // A config file's apps that run are restarted with the file's settings and the caller's
    // environment (PM2's start of a file); a script's start may revive a stopped app of that
    // script with the settings of the flags given; -f starts copies (no restart).
    const files = fresh.filter((c) => fromFile.has(c))
    const scripts = fresh.filter((c) => !fromFile.has(c))
    const given = opts.force ? {} : { given: [...Object.keys(appEntryFromFlags(opts)), ...(args.length > 0 ? ['args'] : [])] }
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = [...restarted]
    // More apps than one request takes (a config of 1000) go in parts, dependencies first.
    for (const part of files.length > 0 ? splitIntoParts(files) : []) rows.push(...await conn.request('app.start', { apps: part, shellEnv, existing: 'restart' }))
    for (const part of scripts.length > 0 ? splitIntoParts(scripts) : []) rows.push(...await conn.request('app.start', { apps: part, shellEnv, ...given }))
    for (const config of joining) rows.push(...await joinApp(conn, config))
    return report(rows, configs, io, opts)
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
 * The workers, and on stderr those that did not come online; the exit code.
 * @param {import('../../ipc/methods.js').WorkerRow[]} rows
 * @param {import('../../ipc/app-config.js').AppConfig[]} configs what was started (for autostart and depends_on)
 * @param {import('../cli.js').CliIo} io
 * @param {Record<string, any>} opts
 */
function report (rows, configs, io, opts) {
  if (opts.json) io.out(JSON.stringify(rows))
  else io.out([renderWorkers(rows), ...renderLogWarnings(rows)].join('\n'))
  // an app with autostart: false is meant to be stopped
  const held = new Set(configs.filter((c) => !c.autostart).map((c) => c.name))
  const failed = rows.filter((r) => r.status === 'errored' || (r.status === 'stopped' && !held.has(r.name)))
  // Apps left unstarted because what they depend on was not ready: they never ran.
  const blocked = configs.filter((c) => c.depends_on?.length > 0 && rows.some((r) => r.name === c.name) &&
    rows.filter((r) => r.name === c.name).every((r) => r.status === 'stopped' && r.last_exit === null))
  for (const c of blocked) io.err(`sup: ${c.name} was not started: what it depends on (${c.depends_on.join(', ')}) was not ready in time (sup restart ${c.name} starts it)`)
  // A process that could not be started at all says why (E2BIG, EACCES, ...), once per app.
  const reasons = new Map(rows.filter((r) => r.last_exit?.reason).map((r) => [r.name, r.last_exit?.reason]))
  for (const [name, reason] of reasons) io.err(`sup: ${name}: ${reason} (sup events ${name})`)
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

/** The configs that came from a config file (or "-"): on start, what of them exists restarts. */
const fromFile = new WeakSet()

/**
 * Every target's apps, in order; two with one name are refused before anything starts.
 * @param {string[]} targets
 * @param {string[]} args
 * @param {Record<string, any>} opts
 * @param {string} cwd
 * @param {(text: string) => void} warn
 */
async function buildAll (targets, args, opts, cwd, warn) {
  const configs = []
  for (const target of targets) {
    const built = await buildConfigs(target, args, opts, cwd, { warn })
    if (target === '-' || isConfigFile(target)) for (const config of built) fromFile.add(config)
    configs.push(...built)
  }
  if (!opts.force) {
    const seen = new Set()
    for (const { name } of configs) {
      if (seen.has(name)) throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name })
      seen.add(name)
    }
  }
  return configs
}

/**
 * -f/--force: the apps whose name already runs get more workers (PM2 starts a second copy of
 * the script under the same name); the others start as new apps.
 * @param {Set<string>} names the apps the daemon has
 * @param {import('../../ipc/app-config.js').AppConfig[]} configs
 */
function splitForced (names, configs) {
  const running = new Set(names)
  /** @type {typeof configs} */
  const fresh = []
  /** @type {typeof configs} */
  const joining = []
  for (const config of configs) {
    if (running.has(config.name)) {
      joining.push(config)
    } else {
      fresh.push(config)
      // the same name twice in one forced start: the second copy joins the first
      running.add(config.name)
    }
  }
  return { fresh, joining }
}

/** What must be the same for a forced copy to join an app: what its workers run. */
const SAME_RUN = /** @type {const} */ (['script', 'args', 'cwd', 'interpreter', 'runtime', 'interpreter_args', 'env'])

/**
 * Add a forced copy's workers to the app of its name, which runs them with its own config;
 * a copy that would run something else is refused, since one app has one config.
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @returns {Promise<import('../../ipc/methods.js').WorkerRow[]>} the new workers
 */
async function joinApp (conn, config) {
  const { config: running } = await conn.request('app.describe', { target: config.name })
  const differs = SAME_RUN.filter((key) => JSON.stringify(running[key]) !== JSON.stringify(config[key]))
  if (differs.length > 0) throw new SupError('SUP_ERR_APP_FORCE_MISMATCH', { name: config.name, keys: differs.join(', ') })
  const outcome = await conn.request('app.scale', { target: config.name, count: `+${config.instances}` })
  if (outcome.outcome === 'aborted') throw new SupError('SUP_ERR_RELOAD_ABORTED', { op: `starting another copy of ${config.name}`, reason: outcome.reason })
  const ids = new Set(outcome.started.map((/** @type {{ id: number }} */ w) => w.id))
  /** @type {import('../../ipc/methods.js').WorkerRow[]} */
  const rows = await conn.request('app.list')
  return rows.filter((r) => ids.has(r.id))
}

/**
 * The balancing asked for: --balance, else SUP_BALANCE; null when neither says.
 * @param {Record<string, any>} opts
 * @param {NodeJS.ProcessEnv} env
 */
function wantedBalance (opts, env) {
  if (opts.balance !== undefined) return daemonBalanceOfFlag(opts.balance, '--balance')
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
