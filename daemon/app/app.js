// @ts-check
// One app in the daemon: its revision (config and environment, and the move to the next on a
// reload or restart), its workers, its log sink, its triggers (cron_restart, watch), the
// rollout under way (one at a time: the lock) and how the last one ended. It emits what happens
// to it; the Supervisor, which keeps the registry of apps, fans the events in.
import { EventEmitter } from 'node:events'
import { dirname, isAbsolute } from 'node:path'
import { APP_FIXED_KEYS } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { STATUS, isRunning, isSettled } from '../worker/lifecycle.js'
import { tolerateTimeout, until, withDeadline } from '../until.js'
import { LogSink } from '../logs/sink.js'
import { trackPidFile } from '../pid-file.js'
import { AppTriggers } from '../triggers/app-triggers.js'
import { Worker } from '../worker/worker.js'
import { gateUnready, probeWorker } from '../probes/worker-probes.js'
import { routesConnections } from '../balance/router.js'
import { createWorkerStores } from './worker-stores.js'
import { makeRevision, reviseRevision } from '../worker/revision.js'
import { workerRow } from './worker-row.js'
import { realEffects } from '../worker/effects.js'
import { readVersioning } from './versioning.js'

/** Worker events written among its log lines (sup logs, the out file): why it went down on its own. */
const LOGGED_KINDS = new Set(['restarting', 'crash-loop', 'not-restarting', 'killed', 'liveness', 'spawn-error'])

/**
 * A failure the user will look for in the logs: not a clean exit (code 0, or a code the app
 * lists in stop_exit_codes), nor an exit it was asked for (those are in sup events).
 * @param {{ kind: string, data: Record<string, unknown> }} event
 */
const isLoggedFailure = (event) => LOGGED_KINDS.has(event.kind) && !(event.kind === 'not-restarting' && event.data.code === 0)

/**
 * @typedef {import('../../ipc/app-config.js').AppConfig} AppConfig
 * @typedef {import('../rollout/reload.js').RolloutSummary} RolloutSummary
 * @typedef {import('../rollout/reload.js').RolloutOutcome} RolloutOutcome
 * @typedef {'reload' | 'scale' | 'replace'} RolloutOp
 *
 * @typedef {object} LogSetup what every app's log sink shares
 * @property {string} logsDir
 * @property {import('../logs/files.js').LogFiles} files the daemon's writers, one per path
 * @property {import('../logs/defaults.js').LogRotation} defaults
 * @property {() => boolean} [linesWanted] whether anyone follows log lines as they come (LogSink)
 */

/**
 * Events: 'app.state' (a worker row), 'log' (a line), 'reload.progress', 'trigger' (reason:
 * cron_restart or watch fired), 'empty' (its last worker has gone).
 */
export class App extends EventEmitter {
  /**
   * @param {object} options
   * @param {AppConfig} options.config frozen
   * @param {Record<string, string>} options.shellEnv the caller's environment at start
   * @param {LogSetup} options.logging
   * @param {import('pino').Logger} options.logger
   * @param {() => number} options.nextId hands out worker ids (they are the registry's)
   * @param {() => number} [options.spareId] an id nobody holds, for a worker that gives its own
   *   to its successor in a reload; not counted as handed out (default: nextId)
   * @param {import('../worker/effects.js').Effects} [options.effects]
   * @param {Record<string, string>} [options.agentEnv] extra variables for node workers' agent
   * @param {boolean} [options.shutdownWithMessage] stop node workers with a "shutdown" message
   *   whatever the app's shutdown_with_message (the daemon's setting)
   * @param {import('../sockets/held-sockets.js').HeldSockets | null} [options.sockets] the
   *   sockets the daemon holds for the app (fork mode, `listen`): every generation is handed them
   * @param {import('./worker-stores.js').WorkerStores} [options.stores] what the daemon knows of
   *   each worker beside it (the sampler's figures, the probes' verdicts)
   */
  constructor ({ config, shellEnv, logging, logger, nextId, spareId = nextId, effects = realEffects(), agentEnv = {}, shutdownWithMessage = false, sockets = null, stores = createWorkerStores() }) {
    super()
    /** @type {import('../worker/revision.js').Revision} what its workers start with, unless a reload gives them the next */
    this.revision = makeRevision(config, shellEnv)
    this.stores = stores
    this.sockets = sockets
    this.logger = logger
    this.nextId = nextId
    this.spareId = spareId
    this.effects = effects
    this.agentEnv = agentEnv
    this.shutdownWithMessage = shutdownWithMessage
    /** @type {{ from: string, at: number } | undefined} set when the app came back from the dump */
    this.restored = undefined
    /** @type {import('./versioning.js').Versioning | null} the git revision its workers last started from */
    this.versioning = null
    this.readingVersioning = false
    /** @type {Worker[]} */
    this.workers = []
    /** @type {RolloutOp | null} the rollout under way: one at a time */
    this.rollout = null
    /** @type {RolloutSummary | null} how the last reload, scale or replace ended */
    this.lastRollout = null
    this.logs = new LogSink({ config, logsDir: logging.logsDir, logger, files: logging.files, defaults: logging.defaults, linesWanted: logging.linesWanted })
    this.logs.on('line', (entry) => this.emit('log', entry))
    // A log file that fails (or works again) changes the rows: `sup ls` and monit should know.
    this.logs.on('status', () => this.announce())
    /** What cron_restart and watch do: ask the Supervisor to restart the app. @param {string} reason */
    this.onTrigger = (reason) => { this.emit('trigger', reason) }
    this.triggers = new AppTriggers({ config, logFiles: this.logs.paths(), restart: this.onTrigger, logger })
    for (let instance = 0; instance < config.instances; instance++) this.addWorker(instance)
  }

  get name () {
    return this.config.name
  }

  get config () {
    return this.revision.config
  }

  get shellEnv () {
    return this.revision.shellEnv
  }

  /**
   * @param {number} instance
   * @param {import('../worker/revision.js').Revision} [revision] config and env to run it with, when
   *   not the app's own (the new workers of a reload with changed settings)
   * @param {number} [id] the id it takes over (a reload's successor); a new one otherwise
   */
  addWorker (instance, revision = this.revision, id = this.nextId()) {
    const worker = new Worker({ id, instance, revision, logs: this.logs, sockets: this.sockets, logger: this.logger, effects: this.effects, agentEnv: this.agentEnv, shutdownWithMessage: this.shutdownWithMessage, siblings: () => this.workers })
    const { usage, agent } = this.stores
    worker.on('state', (state) => {
      if (state.status === 'starting') this.refreshVersioning(worker.config)
      this.emit('app.state', this.row(worker))
    })
    // What was known of its last process is not its new process's.
    worker.on('spawn', () => {
      usage.clear(worker)
      agent.clear(worker)
    })
    worker.on('agent', (report) => agent.set(worker, report))
    if (revision.config.pid_file) trackPidFile(worker, revision.config.pid_file, this.logger)
    worker.on('remove', () => this.removeWorker(worker))
    worker.on('event', (event) => {
      // Why a worker went down, where its lines are: sup logs and its out file (PM2's habit).
      if (isLoggedFailure(event)) this.logs.note(worker, `App [${event.app}:${event.id}] ${event.message}`)
      this.emit('event', event)
    })
    probeWorker(worker, this.stores.probes)
    // Readiness decides who gets connections: any change of any worker may move a gate.
    worker.on('change', () => this.regate())
    this.workers.push(worker)
    return worker
  }

  /** Gate the cluster workers whose readiness probe fails (worker-probes.js). */
  regate () {
    // sup's router (sticky, least-conn) hands connections out as rr does, whatever the daemon's.
    const balance = this.workers.some((w) => routesConnections(w.config)) ? 'rr' : this.effects.balance()
    if (this.workers.some((w) => w.config.readiness)) gateUnready(this.workers, balance, this.stores.gates)
  }

  /** Let go of what the app holds besides its workers: triggers, log files, held sockets. */
  close () {
    this.triggers.stop().catch(() => {})
    this.logs.close()
    this.sockets?.close()
  }

  /**
   * A worker starts: note the git revision of the folder it runs in (`vizion`, PM2's name).
   * One read at a time: the workers of one start share it.
   * @param {AppConfig} config the worker's
   */
  refreshVersioning (config) {
    if (!config.vizion) {
      this.versioning = null
      return
    }
    if (this.readingVersioning) return
    this.readingVersioning = true
    // The folder of the code that runs (PM2 looks in the cwd, which may be anywhere).
    readVersioning(isAbsolute(config.script) ? dirname(config.script) : config.cwd).then((versioning) => { this.versioning = versioning }).finally(() => { this.readingVersioning = false })
  }

  /** @param {Worker} worker */
  removeWorker (worker) {
    this.workers = this.workers.filter((w) => w !== worker)
    this.emit('app.state', { ...this.row(worker), status: 'deleted' })
    if (this.workers.length === 0) this.emit('empty')
  }

  /**
   * Its row in `sup ls` (app/worker-row.js).
   * @param {Worker} worker
   */
  row (worker) {
    return workerRow(worker, { usage: this.stores.usage.get(worker), restored: this.restored, logStatus: this.logs.statusFor(worker.instance), now: this.effects.now() })
  }

  /**
   * Take on a new config or environment, and have `workers` run with it from now on.
   * @param {{ config?: AppConfig, shellEnv?: Record<string, string> }} next
   * @param {Worker[]} [workers]
   */
  swap (next, workers = this.workers) {
    this.moveTo(reviseRevision(this.revision, next), workers)
  }

  /**
   * Make `revision` the app's: the workers that ran the app's revision follow it, and so do
   * `workers` (those a reload started on it, or those a restart names).
   * @param {import('../worker/revision.js').Revision} revision
   * @param {Worker[]} [workers]
   */
  moveTo (revision, workers = this.workers) {
    const before = this.revision.config
    const following = this.revision
    this.revision = revision
    for (const worker of this.workers) if (worker.revision === following || workers.includes(worker)) worker.adopt(revision)
    const { config } = revision
    if (config === before) return
    this.logs.reconfigure(config)
    // cron_restart and watch follow the new settings: `sup stop` turns watch off, a restart
    // from the config file turns it back on (PM2).
    if (TRIGGER_KEYS.some((key) => JSON.stringify(config[key]) !== JSON.stringify(before[key]))) {
      this.triggers.stop().catch(() => {})
      this.triggers = new AppTriggers({ config, logFiles: this.logs.paths(), restart: this.onTrigger, logger: this.logger })
    }
  }

  /**
   * A state event for each worker, so that what follows the app (persistence, monit) sees its
   * new config now rather than at the next change.
   */
  announce () {
    for (const worker of this.workers) this.emit('app.state', this.row(worker))
  }

  /**
   * Mark the app as having a rollout under way; refused while it has one.
   * @param {RolloutOp} op
   * @returns {() => void} release, safe to call twice
   */
  lock (op) {
    if (this.rollout) throw new SupError('SUP_ERR_RELOAD_IN_PROGRESS', { name: this.name, op: this.rollout })
    this.rollout = op
    let held = true
    return () => {
      if (!held) return
      held = false
      this.rollout = null
    }
  }

  /**
   * Progress of a rollout, as it happens (the `reload.progress` topic).
   * @param {RolloutOp} op
   */
  reporter (op) {
    return (/** @type {Record<string, unknown>} */ progress) => this.emit('reload.progress', { name: this.name, op, ...progress, at: this.effects.now() })
  }

  /**
   * A rollout of this app ended: take on the revision its new workers run, if it rolled whole,
   * then record and announce how it ended (what `sup describe` shows of it).
   * @param {(progress: Record<string, unknown>) => void} report the rollout's reporter
   * @param {Omit<RolloutSummary, 'at' | 'ms'>} summary
   * @param {number} began
   * @param {import('../worker/revision.js').Revision | null} [becomes] the app's revision from now on
   * @returns {RolloutOutcome}
   */
  finishRollout (report, summary, began, becomes = null) {
    if (becomes) {
      this.moveTo(becomes)
      this.announce()
    }
    const at = this.effects.now()
    const full = { ...summary, at, ms: at - began }
    this.lastRollout = full
    const code = summary.outcome === 'aborted' ? 'SUP_ERR_RELOAD_ABORTED' : null
    report({ phase: 'end', ...full, code })
    return { name: this.name, code, ...full }
  }

  /**
   * Workers that cron_restart and watch replace: not those stopped by hand, nor those that
   * never ran here (restored as stopped).
   */
  triggerable () {
    return this.workers.filter((w) => !w.state.held && !(w.state.status === STATUS.STOPPED && w.state.lastExit === null))
  }
}

/**
 * Lock several apps at once: all of them, or none when one is busy.
 * @param {App[]} apps
 * @param {RolloutOp} op
 * @returns {(app?: App) => void} release one app, or every one still held
 */
export function lockApps (apps, op) {
  for (const app of apps) {
    if (app.rollout) throw new SupError('SUP_ERR_RELOAD_IN_PROGRESS', { name: app.name, op: app.rollout })
  }
  const releases = new Map(apps.map((app) => [app, app.lock(op)]))
  return (app) => {
    for (const [held, release] of releases) if (!app || held === app) release()
  }
}

/**
 * Settings `sup start <existing app> [flags]` and `sup restart --node-args` may not change
 * (name, script, instances, mode, sockets): they make another app, or a scale.
 */
const UNCHANGEABLE = new Set(APP_FIXED_KEYS)

/**
 * @param {AppConfig} config
 * @param {Partial<AppConfig>} update
 * @returns {AppConfig}
 */
export function updateConfig (config, update) {
  const allowed = Object.entries(update).filter(([key]) => !UNCHANGEABLE.has(key) && key in config)
  return allowed.length === 0 ? config : Object.freeze({ ...config, ...Object.fromEntries(allowed) })
}

/**
 * The settings of `config` named in `given` (watch brings its paths).
 * @param {AppConfig} config
 * @param {string[]} given
 * @returns {Partial<AppConfig>}
 */
export function pickGiven (config, given) {
  const keys = new Set(given)
  if (keys.has('watch')) keys.add('watch_paths')
  // --interpreter /path/to/node or node@22 is kept in runtime (docs/config.md#which-node-runs-an-app).
  if (keys.has('interpreter')) keys.add('runtime')
  return Object.fromEntries(Object.entries(config).filter(([key]) => keys.has(key)))
}

/** @type {ReadonlyArray<keyof AppConfig>} the settings AppTriggers is built from */
const TRIGGER_KEYS = ['cron_restart', 'watch', 'watch_paths', 'ignore_watch', 'watch_delay', 'cwd']

/** Extra time an operation waits beyond the app's own timeouts before answering anyway. */
const SETTLE_GRACE = 2000

/**
 * Wait until every worker satisfies `predicate`, bounded by the slowest timeout that applies;
 * rejects with SUP_ERR_DAEMON_WAIT_TIMEOUT past it.
 * @param {Worker[]} workers
 * @param {(state: import('../worker/lifecycle.js').WorkerState) => boolean} predicate
 * @returns {Promise<void>}
 */
export async function settle (workers, predicate) {
  if (workers.length === 0) return
  const longest = Math.max(...workers.map(({ config }) => Math.max(config.listen_timeout, config.min_uptime) + config.kill_timeout))
  await withDeadline(longest + SETTLE_GRACE, workers[0].effects.timers, `${workers.length} worker(s) to settle`, async (signal) => {
    await Promise.all(workers.map((w) => until(w, () => predicate(w.state), signal)))
  })
}

/**
 * Bring an app to `count` workers at once (a restart with a new size, not a rolling scale):
 * new workers, stopped, on the instances the caller picked (the lowest free ones,
 * rollout/plan.js); or the highest instances stopped and removed.
 * @param {App} app
 * @param {number} count
 * @param {number[]} free the instances for new workers, as many as are missing
 * @returns {Worker[]} the workers on their way out
 */
export function resizeWorkers (app, count, free) {
  const extra = app.workers.length - count
  if (extra > 0) {
    const leaving = [...app.workers].sort((a, b) => b.instance - a.instance || b.id - a.id).slice(0, extra)
    for (const worker of leaving) worker.dispatch({ type: 'stop', afterStop: 'remove' })
    return leaving
  }
  for (const instance of free) app.addWorker(instance)
  return []
}

/**
 * Whether running cluster workers would come back on another node than the one they run on.
 * @param {Worker[]} workers
 * @param {(worker: Worker) => import('../node-runtime/resolve.js').Runtime | null} [next] the node each would start on
 */
export function movesNode (workers, next = safeNextRuntime) {
  return workers.some((w) => w.config.exec_mode === 'cluster' && isRunning(w.state) && w.runtime !== null && next(w)?.path !== w.runtime.path)
}

/**
 * @param {Worker} worker
 * @returns {import('../node-runtime/resolve.js').Runtime | null} null also when none can be found (its start fails and says why)
 */
function safeNextRuntime (worker) {
  try {
    return worker.nextRuntime()
  } catch {
    return null
  }
}

/**
 * Stop and start workers (or start those that are not running), and wait until each is past
 * both; a restart takes a worker out of `sup stop`'s hold.
 * @param {Worker[]} workers
 */
export async function restartWorkers (workers) {
  // A cluster app moving to another node: its new primary can listen on the port only once
  // the old one has let it go, so every worker stops before any starts (docs/reload.md).
  if (movesNode(workers)) {
    const running = workers.filter((w) => isRunning(w.state))
    for (const worker of running) worker.dispatch({ type: 'stop' })
    await settle(workers, isSettled).catch(tolerateTimeout)
    // Counted as a restart, as a stop-then-start is.
    for (const worker of running) worker.dispatch({ type: 'carry-restarts', restarts: worker.state.restarts + 1 })
  }
  // Either lifts `sup stop`'s hold (lifecycle.js).
  for (const worker of workers) {
    if (isRunning(worker.state)) {
      worker.dispatch({ type: 'stop', afterStop: 'start' })
    } else {
      worker.dispatch({ type: 'start' })
    }
  }
  // A restarted worker passes through stopping and starting; wait until it is past both. Past
  // the deadline, go on: the rows the caller answers with show who is still on the way.
  await settle(workers, isSettled).catch(tolerateTimeout)
}
