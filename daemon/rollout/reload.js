// @ts-check
// sup reload, sup scale and the graceful replacement of one worker. One rollout per app at a
// time; `reload all` goes app by app. Cluster apps roll (rollout.js); fork-mode apps have no
// shared socket to hand over, so their reload is a restart and says so.
import { SupError } from '../../ipc/errors.js'
import { DEFAULT_LIMITS, checkLimits, freeInstances, resolveScale } from './plan.js'
import { canRoll, rollWorkers } from './rollout.js'

/**
 * @typedef {import('../supervisor.js').Supervisor} Supervisor
 * @typedef {import('../supervisor.js').App} App
 * @typedef {import('../worker.js').Worker} Worker
 * @typedef {import('./rollout.js').WorkerRef} WorkerRef
 * @typedef {import('../../ipc/app-config.js').AppConfig} AppConfig
 *
 * @typedef {object} RolloutSummary what `sup describe` shows of an app's last reload or scale
 * @property {'reload' | 'scale' | 'replace'} op
 * @property {'rolling' | 'restart'} strategy
 * @property {'reloaded' | 'restarted' | 'scaled' | 'unchanged' | 'aborted'} outcome
 * @property {string | null} reason
 * @property {WorkerRef[]} started
 * @property {WorkerRef[]} retired
 * @property {WorkerRef[]} failed
 * @property {number} at ms, when it ended
 * @property {number} ms how long it took
 *
 * @typedef {RolloutSummary & { name: string, code: string | null }} RolloutOutcome
 */

/** Apps with a rollout under way, per supervisor: app name → op. */
const running = new WeakMap()

/**
 * Reload apps one after the other.
 * @param {Supervisor} supervisor
 * @param {{ targets: string[], cwd?: string, apps?: AppConfig[], shellEnv?: Record<string, string>, surge?: number, maxUnavailable?: number }} params
 */
export async function reloadApps (supervisor, { targets, cwd, apps = [], shellEnv, surge = DEFAULT_LIMITS.surge, maxUnavailable = DEFAULT_LIMITS.maxUnavailable }) {
  const limits = { surge, maxUnavailable }
  const problem = checkLimits(limits)
  if (problem) throw new SupError('SUP_ERR_RELOAD_INVALID_LIMITS', { reason: problem })
  /** @type {Map<App, Worker[]>} */
  const groups = new Map()
  for (const worker of supervisor.resolve(targets, { cwd })) {
    const app = appOf(supervisor, worker)
    groups.set(app, [...(groups.get(app) ?? []), worker])
  }
  for (const config of apps) {
    const app = supervisor.apps.get(config.name)
    if (!app) throw new SupError('SUP_ERR_APP_NOT_FOUND', { target: config.name })
    if (!groups.has(app)) groups.set(app, [...app.workers])
  }
  const release = lock(supervisor, [...groups.keys()], 'reload')
  /** @type {RolloutOutcome[]} */
  const outcomes = []
  try {
    for (const [app, workers] of groups) {
      const config = apps.find((c) => c.name === app.config.name)
      outcomes.push(await reloadApp(supervisor, app, workers, { config, shellEnv, limits }))
      release(app)
    }
  } finally {
    release()
  }
  const names = new Set(outcomes.map((o) => o.name))
  return { apps: outcomes, workers: supervisor.list().filter((row) => names.has(row.name)) }
}

/**
 * @param {Supervisor} supervisor
 * @param {App} app
 * @param {Worker[]} workers the app's workers to replace (all of them, or those named by id)
 * @param {{ config?: AppConfig, shellEnv?: Record<string, string>, limits: import('./plan.js').RollLimits }} options
 * @returns {Promise<RolloutOutcome>}
 */
async function reloadApp (supervisor, app, workers, { config: newConfig, shellEnv, limits }) {
  const began = Date.now()
  const config = newConfig ? Object.freeze({ ...newConfig }) : app.config
  const env = shellEnv ?? app.shellEnv
  const whole = workers.length === app.workers.length
  // Fork mode rolls on the sockets the daemon holds, as long as the new settings ask for the same ones.
  const rolling = canRoll(app) && (config === app.config || (canRoll({ config, shellEnv: env, logs: app.logs, sockets: app.sockets }) &&
    config.exec_mode === app.config.exec_mode && config.listen.join() === app.config.listen.join()))
  const report = reporter(supervisor, app.config.name, 'reload')
  report({ phase: 'begin', strategy: rolling ? 'rolling' : 'restart', workers: workers.length, ...limits, config: Boolean(newConfig), env: Boolean(shellEnv) })

  if (!rolling) {
    // Nothing to hand connections over with: stop, then start, with the new settings.
    if (whole) {
      app.config = config
      app.shellEnv = env
      announceConfig(supervisor, app)
    }
    for (const worker of workers) worker.app = app
    await supervisor.restart(workers.map((w) => String(w.id)))
    if (whole && app.workers.length !== config.instances) await resizeApp(supervisor, app, config.instances, limits, report)
    return finish(supervisor, app, report, { op: 'reload', strategy: 'restart', outcome: 'restarted', reason: 'fork mode: reload falls back to restart (stop, then start)', started: [], retired: [], failed: [] }, began)
  }

  const runtime = config === app.config && env === app.shellEnv ? app : { config, shellEnv: env, logs: app.logs, sockets: app.sockets }
  const instances = whole ? range(config.instances) : workers.map((w) => w.instance)
  const result = await rollWorkers({ supervisor, app, old: workers, instances, runtime, limits, report })
  if (result.outcome === 'done' && whole && runtime !== app) {
    // The app now is what its new workers are.
    app.config = config
    app.shellEnv = env
    for (const worker of app.workers) worker.app = app
    announceConfig(supervisor, app)
  }
  const outcome = result.outcome === 'done' ? 'reloaded' : 'aborted'
  return finish(supervisor, app, report, { op: 'reload', strategy: 'rolling', outcome, ...pick(result) }, began)
}

/**
 * sup scale: up adds ready workers, down retires the highest instances with the drain ladder.
 * @param {Supervisor} supervisor
 * @param {string} target an app name (or a worker id of the app)
 * @param {string} spec "4", "+2" or "-1"
 * @returns {Promise<RolloutOutcome & { from: number, to: number }>}
 */
export async function scaleApp (supervisor, target, spec) {
  const app = supervisor.apps.get(target) ?? appOf(supervisor, supervisor.resolve([target])[0])
  // Checked first: during a rollout the app briefly has more workers than its size.
  const release = lock(supervisor, [app], 'scale')
  try {
    const from = app.workers.length
    const scale = resolveScale(spec, from)
    if ('error' in scale) throw new SupError('SUP_ERR_APP_SCALE_INVALID', { name: app.config.name, value: spec, reason: scale.error })
    const began = Date.now()
    const report = reporter(supervisor, app.config.name, 'scale')
    const strategy = canRoll(app) ? 'rolling' : 'restart'
    if (scale.to === from) {
      const summary = finish(supervisor, app, report, { op: 'scale', strategy, outcome: 'unchanged', reason: `already ${from} worker${from === 1 ? '' : 's'}`, started: [], retired: [], failed: [] }, began)
      return { ...summary, from, to: from }
    }
    report({ phase: 'begin', from, to: scale.to })
    const result = await resizeApp(supervisor, app, scale.to, DEFAULT_LIMITS, report)
    const outcome = result.outcome === 'done' ? 'scaled' : 'aborted'
    return { ...finish(supervisor, app, report, { op: 'scale', strategy, outcome, ...pick(result) }, began), from, to: app.workers.length }
  } finally {
    release()
  }
}

/**
 * Gracefully replace one worker: start its successor on the same instance, wait until it is
 * ready, then drain and retire the old one (a restart in fork mode). For callers such as
 * max_memory_restart; refused with SUP_ERR_RELOAD_IN_PROGRESS while the app has a rollout.
 * @param {Supervisor} supervisor
 * @param {Worker} worker
 * @returns {Promise<RolloutOutcome>}
 */
export async function replaceWorker (supervisor, worker) {
  const app = appOf(supervisor, worker)
  const release = lock(supervisor, [app], 'replace')
  const began = Date.now()
  const report = reporter(supervisor, app.config.name, 'replace')
  try {
    if (!canRoll(app)) {
      await supervisor.restart([String(worker.id)])
      return finish(supervisor, app, report, { op: 'replace', strategy: 'restart', outcome: 'restarted', reason: null, started: [], retired: [], failed: [] }, began)
    }
    const result = await rollWorkers({ supervisor, app, old: [worker], instances: [worker.instance], limits: DEFAULT_LIMITS, report })
    return finish(supervisor, app, report, { op: 'replace', strategy: 'rolling', outcome: result.outcome === 'done' ? 'reloaded' : 'aborted', ...pick(result) }, began)
  } finally {
    release()
  }
}

/**
 * Bring an app to `to` workers: new ones on the lowest free instances, or retire the highest.
 * @param {Supervisor} supervisor
 * @param {App} app
 * @param {number} to
 * @param {import('./plan.js').RollLimits} limits
 * @param {(progress: Record<string, unknown>) => void} report
 */
async function resizeApp (supervisor, app, to, limits, report) {
  const from = app.workers.length
  const byInstanceDesc = [...app.workers].sort((a, b) => b.instance - a.instance || b.id - a.id)
  const old = to < from ? byInstanceDesc.slice(0, from - to) : []
  const instances = to > from ? freeInstances(app.workers.map((w) => w.instance), to - from) : []
  const result = await rollWorkers({ supervisor, app, old, instances, limits, report })
  app.config = Object.freeze({ ...app.config, instances: app.workers.length })
  announceConfig(supervisor, app)
  return result
}

/**
 * A state event for each worker, so that what follows the app (persistence, monit) sees its
 * new config now rather than at the next change.
 * @param {Supervisor} supervisor
 * @param {App} app
 */
function announceConfig (supervisor, app) {
  for (const worker of app.workers) supervisor.emit('app.state', worker.row())
}

/**
 * Mark apps as having a rollout under way; refuse if one already has. Returns a release
 * function: for one app, or all of them when called without one.
 * @param {Supervisor} supervisor
 * @param {App[]} apps
 * @param {string} op
 */
function lock (supervisor, apps, op) {
  /** @type {Map<string, string>} */
  const busy = running.get(supervisor) ?? new Map()
  running.set(supervisor, busy)
  for (const app of apps) {
    const current = busy.get(app.config.name)
    if (current) throw new SupError('SUP_ERR_RELOAD_IN_PROGRESS', { name: app.config.name, op: current })
  }
  const held = new Set(apps.map((a) => a.config.name))
  for (const name of held) busy.set(name, op)
  /** @param {App} [app] */
  return (app) => {
    for (const name of app ? [app.config.name] : [...held]) {
      if (held.delete(name)) busy.delete(name)
    }
  }
}

/**
 * @param {Supervisor} supervisor
 * @param {string} name
 * @param {string} op
 */
function reporter (supervisor, name, op) {
  return (/** @type {Record<string, unknown>} */ progress) => supervisor.emit('reload.progress', { name, op, ...progress, at: Date.now() })
}

/**
 * Record and announce how a rollout ended.
 * @param {Supervisor} supervisor
 * @param {App} app
 * @param {(progress: Record<string, unknown>) => void} report
 * @param {Omit<RolloutSummary, 'at' | 'ms'>} summary
 * @param {number} began
 * @returns {RolloutOutcome}
 */
function finish (supervisor, app, report, summary, began) {
  const at = Date.now()
  const full = { ...summary, at, ms: at - began }
  app.lastRollout = full
  const code = summary.outcome === 'aborted' ? 'SUP_ERR_RELOAD_ABORTED' : null
  report({ phase: 'end', ...full, code })
  return { name: app.config.name, code, ...full }
}

/** @param {import('./rollout.js').RolloutResult} result */
function pick ({ reason, started, retired, failed }) {
  return { reason, started, retired, failed }
}

/**
 * @param {Supervisor} supervisor
 * @param {Worker} worker
 * @returns {App}
 */
function appOf (supervisor, worker) {
  const app = supervisor.apps.get(worker.app.config.name)
  if (!app) throw new SupError('SUP_ERR_APP_NOT_FOUND', { target: worker.app.config.name })
  return app
}

/** @param {number} n */
const range = (n) => Array.from({ length: n }, (_, i) => i)
