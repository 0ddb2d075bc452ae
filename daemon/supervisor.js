// @ts-check
// The app registry: which apps exist, their immutable config, and their workers. RPC
// handlers call it; it turns requests into lifecycle events and waits on their outcome.
import { EventEmitter } from 'node:events'
import { SupError } from '../ipc/errors.js'
import { AppTriggers } from './triggers/app-triggers.js'
import { STATUS } from './lifecycle.js'
import { LOG_DEFAULTS } from './logs/defaults.js'
import { LogFiles } from './logs/files.js'
import { LogSink } from './logs/sink.js'
import { reloadApps, replaceWorker, scaleApp } from './rollout/reload.js'
import { matchTarget, resolveTargets } from './resolve-targets.js'
import { metricsEvent } from './metrics/sampler.js'
import { trackPidFile } from './pid-file.js'
import { HeldSockets } from './sockets/held-sockets.js'
import { Worker } from './worker.js'

/** Extra time an operation waits beyond the app's own timeouts before answering anyway. */
const SETTLE_GRACE = 2000

/**
 * @typedef {import('./worker.js').AppRuntime & { workers: Worker[], triggers: AppTriggers, lastRollout?: import('./rollout/reload.js').RolloutSummary }} App
 */

const isSettled = (/** @type {import('./lifecycle.js').WorkerState} */ s) => s.status !== STATUS.STARTING && s.status !== STATUS.STOPPING
/** Started means up, or given up on: a worker waiting to retry is still on its way. */
const isStarted = (/** @type {import('./lifecycle.js').WorkerState} */ s) => s.status === STATUS.ONLINE || s.status === STATUS.ERRORED || s.status === STATUS.STOPPED
/**
 * The first attempt is decided: up, given up on, or exited and waiting to be tried again. `sup
 * start` answers then, as PM2's does; a crash loop goes on in the background (sup ls follows it).
 */
export const isDecided = (/** @type {import('./lifecycle.js').WorkerState} */ s) => isStarted(s) || s.status === STATUS.WAITING
const isDown = (/** @type {import('./lifecycle.js').WorkerState} */ s) => s.status === STATUS.STOPPED

export class Supervisor extends EventEmitter {
  /**
   * @param {{ logsDir: string, logger: import('pino').Logger, now?: () => number, logDefaults?: import('./logs/defaults.js').LogRotation, agentEnv?: Record<string, string> }} options
   *   agentEnv: extra variables for node workers' agent (the sampling interval)
   */
  constructor ({ logsDir, logger, now = Date.now, logDefaults = LOG_DEFAULTS, agentEnv = {} }) {
    super()
    this.agentEnv = agentEnv
    this.logsDir = logsDir
    this.logger = logger
    this.now = now
    this.logDefaults = logDefaults
    this.logFiles = new LogFiles({ logger })
    /** @type {WeakSet<Worker>} workers stopped by `sup stop`: cron_restart and watch leave them alone */
    this.held = new WeakSet()
    /** @type {Map<string, App>} */
    this.apps = new Map()
    this.nextId = 0
  }

  /**
   * Register and start apps; resolves once every new worker is online or has settled otherwise.
   * @param {import('../ipc/app-config.js').AppConfig[]} configs
   * @param {Record<string, string>} shellEnv
   */
  async start (configs, shellEnv) {
    const names = new Set()
    for (const config of configs) {
      if (this.apps.has(config.name) || names.has(config.name)) throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name: config.name })
      names.add(config.name)
    }
    const started = []
    for (const config of configs) {
      const app = this.addApp(Object.freeze({ ...config }), shellEnv)
      this.logger.info({ app: config.name, mode: config.exec_mode, instances: config.instances }, 'starting app')
      // autostart: false registers the app stopped, held like one `sup stop` stopped
      for (const worker of app.workers) {
        if (config.autostart) worker.dispatch({ type: 'start' })
        else this.held.add(worker)
      }
      started.push(...app.workers)
    }
    await this.settle(started, isDecided)
    return started.map((w) => w.row())
  }

  /**
   * @param {import('../ipc/app-config.js').AppConfig} config
   * @param {Record<string, string>} shellEnv
   * @returns {App}
   */
  addApp (config, shellEnv) {
    // Bound first: an address in use refuses the app before anything of it exists.
    const sockets = config.listen.length > 0 && config.exec_mode === 'fork' ? HeldSockets.bind(config.listen, { app: config.name }) : null
    const logs = new LogSink({ config, logsDir: this.logsDir, logger: this.logger, files: this.logFiles, defaults: this.logDefaults })
    logs.on('line', (entry) => this.emit('log', entry))
    /** @type {App} */
    const app = { config, shellEnv, logs, workers: [], triggers: /** @type {any} */ (null), sockets }
    app.triggers = new AppTriggers({ config, logFiles: logs.paths(), restart: (reason) => this.restartByTrigger(app, reason), logger: this.logger })
    // A log file that fails (or works again) changes the rows: `sup ls` and monit should know.
    logs.on('status', () => { for (const worker of app.workers) this.emit('app.state', worker.row()) })
    for (let instance = 0; instance < config.instances; instance++) this.addWorker(app, instance)
    this.apps.set(config.name, app)
    return app
  }

  /**
   * @param {App} app
   * @param {number} instance
   * @param {import('./worker.js').AppRuntime} [runtime] config and env to run it with, when
   *   not the app's own (the new workers of a reload with changed settings)
   */
  addWorker (app, instance, runtime = app) {
    const worker = new Worker({ id: this.nextId++, instance, app: runtime, logger: this.logger, now: this.now, agentEnv: this.agentEnv })
    worker.on('state', (row) => this.emit('app.state', row))
    if (runtime.config.pid_file) trackPidFile(worker, runtime.config.pid_file, this.logger)
    worker.on('remove', () => this.removeWorker(app, worker))
    app.workers.push(worker)
    return worker
  }

  /**
   * @param {App} app
   * @param {Worker} worker
   */
  removeWorker (app, worker) {
    app.workers = app.workers.filter((w) => w !== worker)
    this.emit('app.state', { ...worker.row(), status: 'deleted' })
    if (app.workers.length === 0 && this.apps.get(app.config.name) === app) {
      this.apps.delete(app.config.name)
      app.triggers.stop().catch(() => {})
      app.logs.close()
      app.sockets?.close()
      this.logger.info({ app: app.config.name }, 'app deleted')
    }
  }

  /**
   * Workers named by targets (rules in resolve-targets.js and docs/cli.md, "Targets").
   * @param {string[]} targets
   * @param {{ cwd?: string, allowNone?: boolean }} [options] cwd: the caller's, for script targets;
   *   allowNone: "all" with no apps is not an error
   * @returns {Worker[]}
   */
  resolve (targets, options) {
    return resolveTargets(targets, this.candidates(), options).map((c) => c.worker)
  }

  /** @param {string} target */
  match (target) {
    return matchTarget(target, this.candidates()).map((c) => c.worker)
  }

  /** Every worker, as resolve-targets.js sees it. */
  candidates () {
    return [...this.apps.values()].flatMap((app) => app.workers.map((worker) => ({
      id: worker.id,
      name: app.config.name,
      namespace: app.config.namespace ?? 'default',
      script: app.config.script,
      worker
    })))
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  async stop (targets, { cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    for (const worker of workers) this.held.add(worker)
    for (const worker of workers) worker.dispatch({ type: 'stop' })
    await this.settle(workers, isDown)
    return workers.map((w) => w.row())
  }

  /**
   * @param {string[]} targets
   * @param {{ shellEnv?: Record<string, string>, cwd?: string }} [options] shellEnv: start with this
   *   environment instead of the one captured at start (--update-env)
   */
  async restart (targets, { shellEnv, cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    for (const worker of workers) {
      if (shellEnv) {
        const app = /** @type {App} */ (this.apps.get(worker.app.config.name))
        app.shellEnv = shellEnv
        worker.app = app
      }
    }
    return this.restartWorkers(workers)
  }

  /** @param {Worker[]} workers */
  async restartWorkers (workers) {
    for (const worker of workers) {
      this.held.delete(worker)
      if (worker.state.status === STATUS.ONLINE || worker.state.status === STATUS.STARTING || worker.state.status === STATUS.STOPPING) {
        worker.dispatch({ type: 'stop', then: 'start' })
      } else {
        worker.dispatch({ type: 'start' })
      }
    }
    // A restarted worker passes through stopping and starting; wait until it is past both.
    await this.settle(workers, (s) => isSettled(s) && s.then === null)
    return workers.map((w) => w.row())
  }

  /**
   * cron_restart or watch fired: replace the app's workers, except those stopped on purpose.
   * Through reload, so a cluster app rolls (each new worker ready before an old one drains:
   * no failed request) where PM2 would restart; a fork-mode app restarts, as in PM2.
   * @param {App} app
   * @param {string} reason
   */
  restartByTrigger (app, reason) {
    if (this.apps.get(app.config.name) !== app) return
    // Left alone: workers stopped by hand, and those that never ran here (restored as stopped).
    const workers = app.workers.filter((w) => !this.held.has(w) && !(w.state.status === STATUS.STOPPED && w.state.lastExit === null))
    if (workers.length === 0) return
    const name = app.config.name
    this.logger.info({ app: name, reason, strategy: app.config.exec_mode === 'cluster' ? 'rolling reload' : 'restart' }, 'restarting app')
    this.reload({ targets: workers.map((w) => String(w.id)) }).then(({ apps }) => {
      const outcome = apps.find((o) => o.name === name)
      if (outcome?.outcome === 'aborted') this.logger.warn({ app: name, reason, failed: outcome.failed }, 'reload aborted: the old workers keep serving')
    }, (err) => {
      // A reload or scale already running (by hand, or the previous tick) is left to finish.
      const busy = err?.code === 'SUP_ERR_RELOAD_IN_PROGRESS'
      this.logger.warn({ err: busy ? undefined : err, app: name, reason }, busy ? 'skipped: a reload or scale of the app is under way' : 'restart failed')
    })
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  async delete (targets, { cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    const gone = workers.map((worker) => new Promise((resolve) => worker.once('remove', resolve)))
    for (const worker of workers) worker.dispatch({ type: 'stop', then: 'remove' })
    await Promise.all(gone)
    return workers.map((w) => ({ ...w.row(), status: 'deleted' }))
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  reset (targets, { cwd } = {}) {
    // PM2 resets "all" of nothing without complaint.
    const workers = this.resolve(targets, { cwd, allowNone: true })
    for (const worker of workers) worker.dispatch({ type: 'reset' })
    return workers.map((w) => w.row())
  }

  /**
   * @param {string[]} targets
   * @param {NodeJS.Signals} signal
   * @param {{ cwd?: string }} [options]
   */
  signal (targets, signal, { cwd } = {}) {
    const workers = this.resolve(targets, { cwd, allowNone: true })
    const signalled = []
    for (const worker of workers) {
      if (worker.state.pid !== null) {
        process.kill(worker.state.pid, signal)
        signalled.push(worker.row())
      }
    }
    return signalled
  }

  list () {
    return [...this.apps.values()].flatMap((app) => app.workers.map((w) => w.row()))
  }

  /** @param {string} target */
  describe (target) {
    const workers = this.resolve([target])
    const app = /** @type {App} */ (this.apps.get(workers[0].app.config.name))
    return {
      name: app.config.name,
      config: app.config,
      logs: app.logs.paths(),
      log_files: app.logs.fileStatus(),
      triggers: app.triggers.status(),
      // The row plus the last sample's other figures (event-loop delay, heap, ...).
      workers: workers.map((w) => metricsEvent(w)),
      last_rollout: app.lastRollout ?? null
    }
  }

  /**
   * Rolling reload (daemon/reload.js).
   * @param {Parameters<typeof reloadApps>[1]} params
   */
  reload (params) {
    return reloadApps(this, params)
  }

  /**
   * @param {string} target
   * @param {string} spec "4", "+2" or "-1"
   */
  scale (target, spec) {
    return scaleApp(this, target, spec)
  }

  /**
   * Gracefully replace one worker: successor ready first, then the old one drained and retired.
   * @param {Worker} worker
   */
  replaceWorker (worker) {
    return replaceWorker(this, worker)
  }

  /**
   * The apps whose logs a target names (all apps for null/"all").
   * @param {string | null | undefined} target
   */
  logSinks (target) {
    if (!target || target === 'all') return [...this.apps.values()].map((app) => app.logs)
    return [...new Set(this.resolve([target]).map((w) => w.app.logs))]
  }

  /** Stop every app (daemon shutdown). */
  async stopAll () {
    await Promise.all([...this.apps.values()].map((app) => app.triggers.stop()))
    const workers = this.list().length > 0 ? this.resolve(['all']) : []
    for (const worker of workers) worker.dispatch({ type: 'stop' })
    await this.settle(workers, isDown)
    await Promise.all([...this.apps.values()].map((app) => app.logs.close()))
  }

  /**
   * Wait until every worker satisfies `predicate`, bounded by the slowest timeout that applies.
   * @param {Worker[]} workers
   * @param {(state: import('./lifecycle.js').WorkerState) => boolean} predicate
   */
  async settle (workers, predicate) {
    if (workers.length === 0) return
    const longest = Math.max(...workers.map((w) => Math.max(w.app.config.listen_timeout, w.app.config.min_uptime) + w.app.config.kill_timeout))
    const signal = AbortSignal.timeout(longest + SETTLE_GRACE)
    await Promise.all(workers.map((w) => w.when(predicate, signal)))
  }
}
