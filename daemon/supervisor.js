// @ts-check
// The registry of apps (names, worker ids, targets) and the fan-in of their events. RPC
// handlers call it; it resolves targets to workers and hands the work to the apps
// (daemon/app/app.js) and to reload (daemon/rollout/reload.js).
import { EventEmitter } from 'node:events'
import { SupError } from '../ipc/errors.js'
import { App, pickGiven, resizeWorkers, restartWorkers, settle, updateConfig } from './app/app.js'
import { realEffects } from './worker/effects.js'
import { isDecided, isRunning, isStopped } from './worker/lifecycle.js'
import { checkDependencies } from './app/depends-on.js'
import { launchInOrder } from './app/launch-order.js'
import { LOG_DEFAULTS } from './logs/defaults.js'
import { LogFiles } from './logs/files.js'
import { tolerateTimeout, until } from './until.js'
import { reloadApps, reloadByTrigger, replaceWorker, scaleApp } from './rollout/reload.js'
import { freeInstances } from './rollout/plan.js'
import { matchTarget, resolveTargets } from './resolve-targets.js'
import { metricsEvent } from './metrics/sampler.js'
import { memoryEvent, replaceOnce } from './metrics/memory-guard.js'
import { HeldSockets } from './sockets/held-sockets.js'
import { InheritedSockets } from './sockets/inherited-sockets.js'
import { createWorkerStores } from './app/worker-stores.js'
import { resolveRunAs } from './worker/run-as.js'

/**
 * @typedef {import('./worker/worker.js').Worker} Worker
 * @typedef {import('../ipc/app-config.js').AppConfig} AppConfig
 */

/**
 * @param {Map<Worker, App>} apps
 * @param {Worker} worker
 */
function rowOf (apps, worker) {
  return /** @type {App} */ (apps.get(worker)).row(worker)
}

export class Supervisor extends EventEmitter {
  /**
   * @param {{ logsDir: string, logger: import('pino').Logger, linesWanted?: () => boolean, effects?: import('./worker/effects.js').Effects, logDefaults?: import('./logs/defaults.js').LogRotation, agentEnv?: Record<string, string>, shutdownWithMessage?: boolean, inherited?: InheritedSockets }} options
   *   effects: spawn, timers, clock, process tree and balancing for every worker (tests pass fakes);
   *   agentEnv: extra variables for node workers' agent (the sampling interval);
   *   shutdownWithMessage: stop every node worker with a "shutdown" message (daemon-wide);
   *   inherited: sockets systemd passed to the daemon, for the apps whose `listen` they serve;
   *   linesWanted: whether anyone follows log lines as they come (daemon.js asks its subscriptions)
   */
  constructor ({ logsDir, logger, effects = realEffects(), logDefaults = LOG_DEFAULTS, agentEnv = {}, shutdownWithMessage = false, inherited = new InheritedSockets(), linesWanted }) {
    super()
    this.inherited = inherited
    this.agentEnv = agentEnv
    this.shutdownWithMessage = shutdownWithMessage
    this.logger = logger
    this.effects = effects
    /** @type {import('./app/app.js').LogSetup} */
    this.logging = { logsDir, files: new LogFiles({ logger }), defaults: logDefaults, linesWanted }
    /** @type {Map<string, App>} */
    this.apps = new Map()
    this.nextId = 0
    /** What the sampler and the probes know of each worker (app/worker-stores.js). */
    this.stores = createWorkerStores()
    /** Carries out the memory guard's decisions (metrics/memory-guard.js). */
    this.carryOut = replaceOnce((decision) => {
      this.emit('event', memoryEvent(decision))
      return this.replaceWorker(decision.worker)
    }, logger)
  }

  /**
   * Register and start apps; resolves once every new worker is online or has settled otherwise.
   * An app that exists already is restarted instead, as PM2's start does, when `existing` says
   * so (a config file: it takes the file's settings and the caller's environment), or when it
   * runs the same script and none of its workers runs (`sup start app.js` of a stopped app:
   * it takes the settings named in `given`, the flags the caller gave); otherwise refused.
   * @param {AppConfig[]} configs
   * @param {Record<string, string>} shellEnv
   * @param {{ existing?: 'restart', given?: string[] }} [options]
   */
  async start (configs, shellEnv, { existing, given } = {}) {
    // First, so that the checks below and what they decide see the registry with no wait between.
    await Promise.all(configs.map((config) => this.effects.prepare(config, { ...shellEnv, ...config.env })))
    const names = new Set()
    /** @type {Array<{ app: App, config: AppConfig }>} */
    const present = []
    const fresh = []
    for (const config of configs) {
      const app = this.apps.get(config.name)
      if (names.has(config.name)) throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name: config.name })
      names.add(config.name)
      if (!app) fresh.push(config)
      else if (existing === 'restart') present.push({ app, config })
      else if (given && app.config.script === config.script && !app.workers.some((w) => isRunning(w.state))) present.push({ app, config: updateConfig(app.config, pickGiven(config, given)) })
      else throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name: config.name })
    }
    checkDependencies(configs, new Map([...this.apps.values()].map((app) => [app.name, app.config.depends_on ?? []])))
    // An app that cannot run at all (no cwd, script, interpreter or node) is refused before anything runs.
    for (const config of configs) this.effects.preflight(config, { ...shellEnv, ...config.env })
    // So do a user or group that does not exist, or that this daemon cannot become.
    for (const config of configs) resolveRunAs(config)
    // Bound first: an address in use refuses the start before anything of it exists.
    const sockets = await this.bindSockets(fresh)
    this.refuseTaken(fresh, sockets)
    const restarting = present.map(({ app, config }) => this.restartApp(app, config, existing === 'restart' ? shellEnv : app.shellEnv))
    const apps = fresh.map((config) => {
      const app = this.addApp(Object.freeze({ ...config }), shellEnv, sockets.get(config.name))
      this.logger.info({ app: config.name, mode: config.exec_mode, instances: config.instances }, 'starting app')
      return app
    })
    // autostart: false registers the app stopped, held like one `sup stop` stopped.
    for (const app of apps) if (!app.config.autostart) for (const worker of app.workers) worker.dispatch({ type: 'hold' })
    // Registered is a change like any other, for the state file and the subscribers, even
    // when no worker moves (issue 19 item 5).
    for (const app of apps) if (!app.config.autostart) app.announce()
    await launchInOrder(apps.filter((app) => app.config.autostart).map((app) => ({ app, workers: app.workers })), { apps: this.apps, logger: this.logger })
    const started = apps.flatMap((app) => app.workers)
    // The first attempt decided (up, given up on, or waiting to retry), as PM2's start answers;
    // past the deadline, answer with the rows as they are: the CLI names those not online.
    await Promise.all([settle(started, isDecided).catch(tolerateTimeout), ...restarting])
    // In the order of the configs, as they were asked for.
    return configs.flatMap((config) => {
      const app = this.apps.get(config.name)
      return app?.workers.map((w) => app.row(w)) ?? []
    })
  }

  /**
   * Bind the sockets the apps' `listen` settings ask the daemon to hold (fork mode), all or
   * none: an address in use refuses them all. The listen helper is awaited, never waited for
   * on the daemon's loop.
   * @param {AppConfig[]} configs
   * @returns {Promise<Map<string, HeldSockets>>} by app name
   */
  async bindSockets (configs) {
    /** @type {Map<string, HeldSockets>} */
    const held = new Map()
    try {
      for (const config of configs) {
        if (config.listen.length > 0 && config.exec_mode === 'fork') held.set(config.name, await HeldSockets.bind(config.listen, { app: config.name, inherited: this.inherited }))
      }
    } catch (err) {
      for (const sockets of held.values()) sockets.close()
      throw err
    }
    return held
  }

  /**
   * Names taken while their sockets were bound (another start, a resurrect) refuse the start.
   * @param {AppConfig[]} configs
   * @param {Map<string, HeldSockets>} sockets
   */
  refuseTaken (configs, sockets) {
    const taken = configs.find((config) => this.apps.has(config.name))
    if (!taken) return
    for (const held of sockets.values()) held.close()
    throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name: taken.name })
  }

  /**
   * Carry out a restore that Persistence proposes (after a crash, or `sup resurrect`): bind
   * what its apps hold, then register those not running now (checked here, with no await
   * before the last is registered: two restores never both add one), then start the workers
   * that ran, in depends_on order.
   * @param {import('./dump/persistence.js').RestoreProposal} proposal
   * @returns {Promise<{ batch: Array<{ app: App, workers: Worker[] }>, launched: Promise<void>, refusals: string[] }>}
   */
  async restore ({ apps, shellEnv, restored }) {
    const configs = apps.filter((entry) => !this.apps.has(entry.config.name)).map((entry) => entry.config)
    await Promise.all(configs.map((config) => this.effects.prepare(config, { ...shellEnv, ...config.env })))
    const sockets = await this.bindSockets(configs)
    /** @type {string[]} apps kept stopped: what they need is gone (daemon/preflight.js) */
    const refusals = []
    const batch = apps.filter((entry) => !this.apps.has(entry.config.name)).map((entry) => {
      const config = Object.freeze({ ...entry.config, instances: entry.workers.length })
      const refused = refusalOf(() => this.effects.preflight(config, { ...shellEnv, ...config.env }))
      const app = this.addApp(config, shellEnv, sockets.get(config.name))
      app.restored = restored
      if (refused) {
        // Kept, held as `sup stop` leaves it (`sup restart` tries again once it is fixed), and
        // said once, rather than a crash loop of a script that is gone.
        for (const worker of app.workers) worker.dispatch({ type: 'hold' })
        refusals.push(`${config.name} was not started: ${refused.message}`)
        return { app, workers: [] }
      }
      this.logger.info({ app: config.name, from: restored.from, instances: config.instances }, 'restoring app')
      return { app, workers: app.workers.filter((worker, i) => entry.workers[i].run) }
    })
    // Bound for an app another restore registered meanwhile: let go.
    for (const [name, held] of sockets) if (!batch.some((entry) => entry.app.name === name)) held.close()
    return { batch, launched: launchInOrder(batch, { apps: this.apps, logger: this.logger }), refusals }
  }

  /**
   * `sup resurrect`: a restore, answered once the first attempt of every worker it starts is decided.
   * @param {import('./dump/persistence.js').RestoreProposal} proposal
   */
  async resurrect (proposal) {
    const { batch, launched, refusals } = await this.restore(proposal)
    await launched
    await settle(batch.flatMap((entry) => entry.workers.filter((w) => !w.state.held)), isDecided).catch(tolerateTimeout)
    return { apps: batch.map((entry) => entry.app.name), workers: batch.flatMap((entry) => entry.app.workers.map((w) => entry.app.row(w))), refusals }
  }

  /**
   * Restart every worker of an app with new settings (and environment), resized to the new
   * number of instances.
   * @param {App} app
   * @param {AppConfig} config
   * @param {Record<string, string>} shellEnv
   */
  async restartApp (app, config, shellEnv) {
    app.swap({ config: Object.freeze({ ...config }), shellEnv })
    app.announce()
    this.logger.info({ app: app.name }, 'restarting app with its new settings')
    const taken = app.workers.map((w) => w.instance)
    const leaving = resizeWorkers(app, config.instances, freeInstances(taken, config.instances - taken.length))
    await Promise.all([restartWorkers(app.workers.filter((w) => !leaving.includes(w))), ...leaving.map((w) => until(w, () => w.removed, undefined, 'remove'))])
  }

  /**
   * Create an app, its workers stopped, and register it; its events become the supervisor's.
   * @param {import('../ipc/app-config.js').AppConfig} config
   * @param {Record<string, string>} shellEnv
   * @param {HeldSockets | null} [sockets] what the daemon holds for it (bindSockets)
   * @returns {App}
   */
  addApp (config, shellEnv, sockets = null) {
    const app = new App({ config, shellEnv, sockets, logging: this.logging, logger: this.logger, nextId: () => this.takeId(), spareId: () => this.spareId(), effects: this.effects, agentEnv: this.agentEnv, shutdownWithMessage: this.shutdownWithMessage, stores: this.stores })
    for (const topic of ['app.state', 'log', 'reload.progress', 'event']) app.on(topic, (data) => this.emit(topic, data))
    app.on('trigger', (reason) => {
      if (this.apps.get(app.name) !== app) return
      this.note(app.name, reason.startsWith('watch') ? 'watch' : 'cron', `${reason}: restarting the app`, { reason })
      reloadByTrigger(app, reason)
    })
    app.on('empty', () => {
      if (this.apps.get(app.name) !== app) return
      this.apps.delete(app.name)
      // As PM2: once no app is left, ids start from 0 again.
      if (this.apps.size === 0) this.nextId = 0
      app.close()
      this.logger.info({ app: app.name }, 'app deleted')
    })
    this.apps.set(config.name, app)
    return app
  }

  /**
   * An app-wide decision and its reason, for the journal (sup events).
   * @param {string} app
   * @param {string} kind
   * @param {string} message
   * @param {Record<string, unknown>} [data]
   */
  note (app, kind, message, data = {}) {
    this.emit('event', { kind, level: 'info', app, id: null, instance: null, message, data })
  }

  /** The ids workers hold now. */
  usedIds () {
    return new Set([...this.apps.values()].flatMap((app) => app.workers.map((w) => w.id)))
  }

  /** The next worker id: ids go up (a deleted app's are not handed out again) until no app is left. */
  takeId () {
    const used = this.usedIds()
    while (used.has(this.nextId)) this.nextId++
    return this.nextId++
  }

  /**
   * An id for a worker that gave its own to its successor, held only while it retires: not
   * counted as handed out, so a reload does not move the ids later apps get (as in PM2).
   */
  spareId () {
    const used = this.usedIds()
    let id = this.nextId
    while (used.has(id)) id++
    return id
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
    for (const name of new Set(workers.map((w) => w.config.name))) this.note(name, 'stop', 'stopped by the user (sup stop)')
    for (const worker of workers) worker.dispatch({ type: 'stop', hold: true })
    // As PM2: stopping a watched app stops the watching, until a restart from its config file
    // or with --watch turns it on again (a plain restart leaves it off).
    for (const app of new Set(workers.map((w) => this.appOf(w)))) {
      if (app.config.watch && app.workers.every((w) => w.state.held)) app.swap({ config: Object.freeze({ ...app.config, watch: false }) })
    }
    await settle(workers, isStopped).catch(tolerateTimeout)
    return this.rows(workers)
  }

  /**
   * @param {string[]} targets
   * @param {{ shellEnv?: Record<string, string>, cwd?: string, update?: Partial<AppConfig>, toggleWatch?: boolean }} [options]
   *   shellEnv: start with this environment instead of the one captured at start (--update-env);
   *   update: settings the caller changes (--node-args); toggleWatch: PM2's `restart --watch`
   *   turns watching on when off, off when on
   */
  async restart (targets, { shellEnv, cwd, update, toggleWatch } = {}) {
    // Resolved again after the wait, which a `sup delete` may have come in during.
    const named = new Set(this.resolve(targets, { cwd }).map((w) => this.appOf(w)))
    await Promise.all([...named].map((app) => this.effects.prepare(app.config, { ...(shellEnv ?? app.shellEnv), ...app.config.env })))
    const workers = this.resolve(targets, { cwd })
    const apps = new Set(workers.map((w) => this.appOf(w)))
    // A node that cannot be found refuses the restart before any worker stops.
    for (const app of apps) this.effects.runtime(app.config, { ...(shellEnv ?? app.shellEnv), ...app.config.env })
    if (update?.name) this.rename(workers, update.name)
    for (const app of apps) this.note(app.name, 'restart', `restarted by the user (sup restart${toggleWatch ? ' --watch' : ''})`)
    for (const app of apps) {
      let config = update ? updateConfig(app.config, update) : app.config
      if (toggleWatch) config = Object.freeze({ ...config, watch: !app.config.watch })
      const changed = config !== app.config
      app.swap({ config, shellEnv }, workers.filter((w) => app.workers.includes(w)))
      if (changed) app.announce()
    }
    await restartWorkers(workers)
    return this.rows(workers)
  }

  /**
   * PM2's `restart <app> --name <new>`: the app of these workers takes the new name (its log
   * files follow from its next start); refused when they belong to several apps or the name
   * is taken.
   * @param {Worker[]} workers
   * @param {string} name
   * @returns {string} the old name
   */
  rename (workers, name) {
    const apps = [...new Set(workers.map((w) => this.appOf(w)))]
    if (apps.length !== 1) throw new SupError('SUP_ERR_APP_RENAME_MANY', { count: apps.length, name })
    const [app] = apps
    const old = app.name
    if (old === name) return old
    if (this.apps.has(name)) throw new SupError('SUP_ERR_APP_ALREADY_EXISTS', { name })
    this.logger.info({ app: app.name, to: name }, 'renaming app')
    app.swap({ config: Object.freeze({ ...app.config, name }) })
    // In place: `sup ls` lists apps in the order they were started.
    const entries = [...this.apps].map(([key, value]) => /** @type {[string, App]} */ ([key === old ? name : key, value]))
    this.apps.clear()
    for (const [key, value] of entries) this.apps.set(key, value)
    app.announce()
    return old
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  async delete (targets, { cwd } = {}) {
    const workers = this.resolve(targets, { cwd })
    // Its app leaves the registry with its last worker: the rows are made by the apps known now.
    const rows = new Map(workers.map((w) => [w, this.appOf(w)]))
    const gone = workers.map((worker) => until(worker, () => worker.removed, undefined, 'remove'))
    for (const name of new Set(workers.map((w) => w.config.name))) this.note(name, 'delete', 'deleted by the user (sup delete)')
    for (const worker of workers) worker.dispatch({ type: 'stop', afterStop: 'remove' })
    await Promise.all(gone)
    return workers.map((w) => ({ ...rowOf(rows, w), status: 'deleted' }))
  }

  /**
   * @param {string[]} targets
   * @param {{ cwd?: string }} [options]
   */
  reset (targets, { cwd } = {}) {
    // PM2 resets "all" of nothing without complaint.
    const workers = this.resolve(targets, { cwd, allowNone: true })
    for (const worker of workers) worker.dispatch({ type: 'reset' })
    return this.rows(workers)
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
      // Through the effects, as every signal: a process gone meanwhile is not counted.
      if (worker.state.pid !== null && this.effects.tree.signal(worker.state.pid, signal)) signalled.push(worker)
    }
    return this.rows(signalled)
  }

  list () {
    return [...this.apps.values()].flatMap((app) => app.workers.map((w) => app.row(w)))
  }

  /**
   * Their rows in `sup ls` (app/worker-row.js).
   * @param {Worker[]} workers
   */
  rows (workers) {
    return workers.map((w) => this.appOf(w).row(w))
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
      workers: workers.map((w) => ({ ...metricsEvent(app.row(w), this.stores.usage.get(w)), probes: this.stores.probes.get(w) })),
      last_rollout: app.lastRollout ?? null,
      // The git revision the workers last started from, when the app's folder is a checkout.
      versioning: app.versioning
    }
  }

  /**
   * Rolling reload (daemon/rollout/reload.js). The settings it changes (`update`, --node-args)
   * are turned here into a function from an app's config to the one it reloads with.
   * @param {import('./rollout/reload.js').ReloadParams & { update?: Partial<AppConfig> }} params
   */
  reload ({ update, ...params }) {
    const revise = update ? (/** @type {AppConfig} */ config) => updateConfig(config, update) : undefined
    const name = update?.name
    if (!name) return reloadApps(this.reloadScope(), { ...params, revise })
    const old = this.rename(this.resolve(params.targets, { cwd: params.cwd }), name)
    return reloadApps(this.reloadScope(), { ...params, revise, targets: params.targets.map((t) => t === old ? name : t) })
  }

  /**
   * What a reload is given: the registry to read, and the Supervisor's own way to start the
   * apps of a config file that do not run (reload does not change the registry itself).
   * @returns {import('./rollout/reload.js').ReloadScope}
   */
  reloadScope () {
    return {
      apps: this.apps,
      group: (targets, options) => this.byApp(this.resolve(targets, options)),
      startApps: (configs, shellEnv) => this.start(configs, shellEnv),
      list: () => this.list(),
      now: this.effects.now
    }
  }

  /**
   * @param {Worker[]} workers
   * @returns {Map<App, Worker[]>} the workers, by the app they belong to
   */
  byApp (workers) {
    /** @type {Map<App, Worker[]>} */
    const groups = new Map()
    for (const worker of workers) {
      const app = this.appOf(worker)
      groups.set(app, [...(groups.get(app) ?? []), worker])
    }
    return groups
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
    const app = this.apps.get(worker.config.name)
    if (!app) throw new SupError('SUP_ERR_APP_NOT_FOUND', { target: worker.config.name })
    return app
  }

  /**
   * The apps whose logs a target names (all apps for null/"all").
   * @param {string | null | undefined} target
   */
  logSinks (target) {
    if (!target || target === 'all') return [...this.apps.values()].map((app) => app.logs)
    return [...new Set(this.resolve([target]).map((w) => this.appOf(w).logs))]
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
   * @param {(state: import('./worker/lifecycle.js').WorkerState) => boolean} predicate
   */
  settle (workers, predicate) {
    return settle(workers, predicate)
  }
}

/**
 * Why a saved app cannot start now (daemon/preflight.js), or null.
 * @param {() => void} check
 * @returns {Error | null}
 */
function refusalOf (check) {
  try {
    check()
    return null
  } catch (err) {
    return /** @type {Error} */ (err)
  }
}
