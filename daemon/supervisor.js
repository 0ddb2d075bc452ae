// @ts-check
// The registry of apps (names, worker ids, targets) and the fan-in of their events. RPC
// handlers call it; it resolves targets to workers and hands the work to the apps
// (daemon/app/app.js) and to reload (daemon/rollout/reload.js).
import { EventEmitter } from 'node:events'
import { SupError } from '../ipc/errors.js'
import { App, restartWorkers, settle } from './app/app.js'
import { REAL_EFFECTS } from './app/effects.js'
import { STATUS, isDecided, isStopped } from './lifecycle.js'
import { checkDependencies } from './app/depends-on.js'
import { LOG_DEFAULTS } from './logs/defaults.js'
import { LogFiles } from './logs/files.js'
import { tolerateTimeout, until } from './until.js'
import { reloadApps, reloadByTrigger, replaceWorker, scaleApp } from './rollout/reload.js'
import { matchTarget, resolveTargets } from './resolve-targets.js'
import { metricsEvent } from './metrics/sampler.js'
import { HeldSockets } from './sockets/held-sockets.js'

/** @typedef {import('./worker.js').Worker} Worker */

export class Supervisor extends EventEmitter {
  /**
   * @param {{ logsDir: string, logger: import('pino').Logger, effects?: import('./app/effects.js').Effects, logDefaults?: import('./logs/defaults.js').LogRotation, agentEnv?: Record<string, string> }} options
   *   effects: spawn, timers, clock, process tree and balancing for every worker (tests pass fakes);
   *   agentEnv: extra variables for node workers' agent (the sampling interval)
   */
  constructor ({ logsDir, logger, effects = REAL_EFFECTS, logDefaults = LOG_DEFAULTS, agentEnv = {} }) {
    super()
    this.agentEnv = agentEnv
    this.logger = logger
    this.effects = effects
    /** @type {import('./app/app.js').LogSetup} */
    this.logging = { logsDir, files: new LogFiles({ logger }), defaults: logDefaults }
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
    checkDependencies(configs, new Map([...this.apps.values()].map((app) => [app.name, app.config.depends_on ?? []])))
    const apps = configs.map((config) => {
      const app = this.addApp(Object.freeze({ ...config }), shellEnv)
      this.logger.info({ app: config.name, mode: config.exec_mode, instances: config.instances }, 'starting app')
      return app
    })
    // Each app starts once its dependencies are ready (depends_on); the others at once.
    /** @type {Map<string, Promise<void>>} */
    const launches = new Map()
    /** @type {Map<string, Promise<boolean>>} */
    const readiness = new Map()
    const isReady = async (/** @type {string} */ name) => {
      await null // every launch of this start is registered by then
      await launches.get(name)
      const app = this.apps.get(name)
      if (!app) return false
      await settle(app.workers, isDecided).catch(tolerateTimeout)
      return app.workers.length > 0 && app.workers.every((w) => w.state.status === STATUS.ONLINE)
    }
    const readyOf = (/** @type {string} */ name) => {
      if (!readiness.has(name)) readiness.set(name, isReady(name))
      return /** @type {Promise<boolean>} */ (readiness.get(name))
    }
    const launch = async (/** @type {App} */ app) => {
      const { config } = app
      const deps = config.autostart ? config.depends_on ?? [] : []
      const verdicts = await Promise.all(deps.map(readyOf))
      const unready = deps.filter((_, i) => !verdicts[i])
      if (unready.length > 0) this.logger.warn({ app: app.name, unready }, 'not started: a dependency (depends_on) is not ready')
      // autostart: false registers the app stopped, held like one `sup stop` stopped; so is
      // an app whose dependencies are not ready (sup restart starts it).
      for (const worker of app.workers) {
        if (config.autostart && unready.length === 0) worker.dispatch({ type: 'start' })
        else worker.held = true
      }
    }
    for (const app of apps) launches.set(app.name, launch(app))
    await Promise.all(launches.values())
    const started = apps.flatMap((app) => app.workers)
    // The first attempt decided (up, given up on, or waiting to retry), as PM2's start answers;
    // past the deadline, answer with the rows as they are: the CLI names those not online.
    await settle(started, isDecided).catch(tolerateTimeout)
    return started.map((w) => w.row())
  }

  /**
   * Create an app, its workers stopped, and register it; its events become the supervisor's.
   * @param {import('../ipc/app-config.js').AppConfig} config
   * @param {Record<string, string>} shellEnv
   * @returns {App}
   */
  addApp (config, shellEnv) {
    // Bound first: an address in use refuses the app before anything of it exists.
    const sockets = config.listen.length > 0 && config.exec_mode === 'fork' ? HeldSockets.bind(config.listen, { app: config.name }) : null
    const app = new App({ config, shellEnv, sockets, logging: this.logging, logger: this.logger, nextId: () => this.nextId++, effects: this.effects, agentEnv: this.agentEnv })
    for (const topic of ['app.state', 'log', 'reload.progress']) app.on(topic, (data) => this.emit(topic, data))
    app.on('trigger', (reason) => { if (this.apps.get(app.name) === app) reloadByTrigger(app, reason) })
    app.on('empty', () => {
      if (this.apps.get(app.name) !== app) return
      this.apps.delete(app.name)
      app.close()
      this.logger.info({ app: app.name }, 'app deleted')
    })
    this.apps.set(config.name, app)
    return app
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
    for (const worker of workers) worker.held = true
    for (const worker of workers) worker.dispatch({ type: 'stop' })
    await settle(workers, isStopped).catch(tolerateTimeout)
    return workers.map((w) => w.row())
  }

  /**
   * @param {string[]} targets
   * @param {{ shellEnv?: Record<string, string>, cwd?: string }} [options] shellEnv: start with this
   *   environment instead of the one captured at start (--update-env)
   */
  async restart (targets, { shellEnv, cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    if (shellEnv) {
      for (const worker of workers) this.appOf(worker).swap({ shellEnv }, [worker])
    }
    return restartWorkers(workers)
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  async delete (targets, { cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    // No deadline: a worker is removed once it has stopped, and the stop ladder ends in SIGKILL.
    const gone = workers.map((worker) => until(worker, () => worker.removed, undefined, 'remove'))
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
    const app = this.appOf(workers[0])
    return {
      name: app.config.name,
      config: app.config,
      logs: app.logs.paths(),
      log_files: app.logs.fileStatus(),
      triggers: app.triggers.status(),
      // The row plus the last sample's other figures (event-loop delay, heap, ...).
      workers: workers.map((w) => ({ ...metricsEvent(w), probes: w.probes })),
      last_rollout: app.lastRollout ?? null
    }
  }

  /**
   * Rolling reload (daemon/rollout/reload.js).
   * @param {Parameters<typeof reloadApps>[1]} params
   */
  reload (params) {
    return reloadApps(this, params)
  }

  /**
   * @param {string} target an app name (or a worker id of the app)
   * @param {string} spec "4", "+2" or "-1"
   */
  scale (target, spec) {
    return scaleApp(this.apps.get(target) ?? this.appOf(this.resolve([target])[0]), spec)
  }

  /**
   * Gracefully replace one worker (max_memory_restart): successor ready first, then the old
   * one drained and retired; counted as a restart.
   * @param {Worker} worker
   */
  replaceWorker (worker) {
    return replaceWorker(this.appOf(worker), worker)
  }

  /**
   * The app a worker belongs to.
   * @param {Worker} worker
   * @returns {App}
   */
  appOf (worker) {
    const app = this.apps.get(worker.app.config.name)
    if (!app) throw new SupError('SUP_ERR_APP_NOT_FOUND', { target: worker.app.config.name })
    return app
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
    // Shutting down goes on past the deadline: the logs still get closed, the dump written.
    await settle(workers, isStopped).catch(tolerateTimeout)
    // What the workers left behind is killed before the daemon exits, not after.
    await Promise.all(workers.map((worker) => worker.reaped()))
    await Promise.all([...this.apps.values()].map((app) => app.logs.close()))
  }

  /**
   * Wait until every worker satisfies `predicate`, bounded by the slowest timeout that applies;
   * rejects with SUP_ERR_DAEMON_WAIT_TIMEOUT past it.
   * @param {Worker[]} workers
   * @param {(state: import('./lifecycle.js').WorkerState) => boolean} predicate
   */
  settle (workers, predicate) {
    return settle(workers, predicate)
  }
}
