// @ts-check
// sup reload, sup scale and the graceful replacement of one worker. One rollout per app at a
// time; `reload all` goes app by app. Cluster apps roll (rollout.js); fork-mode apps have no
// shared socket to hand over, so their reload is a restart and says so.
import { SupError } from '../../ipc/errors.js'
import { lockApps, movesNode, restartWorkers } from '../app/app.js'
import { DEFAULT_LIMITS, checkLimits, freeInstances, resolveScale } from './plan.js'
import { canRoll, rollWorkers } from './rollout.js'
import { reviseRevision } from '../worker/revision.js'

/**
 * @typedef {import('../app/app.js').App} App
 * @typedef {import('../worker/worker.js').Worker} Worker
 * @typedef {import('./rollout.js').WorkerRef} WorkerRef
 * @typedef {import('../../ipc/app-config.js').AppConfig} AppConfig
 *
 * @typedef {object} ReloadScope what a reload of several apps is given (by the Supervisor, which
 *   alone changes the registry)
 * @property {ReadonlyMap<string, App>} apps the registry, to read
 * @property {(targets: string[], options?: { cwd?: string }) => Map<App, Worker[]>} group the
 *   workers the targets name, by app
 * @property {(configs: AppConfig[], shellEnv: Record<string, string>) => Promise<unknown>} startApps
 *   register and start apps of a config file that do not run
 * @property {() => import('../../ipc/methods.js').WorkerRow[]} list
 * @property {() => number} now
 *
 * @typedef {object} RolloutSummary what `sup describe` shows of an app's last reload or scale
 * @property {'reload' | 'scale' | 'replace'} op
 * @property {'rolling' | 'restart'} strategy
 * @property {'reloaded' | 'restarted' | 'scaled' | 'unchanged' | 'aborted' | 'started'} outcome
 *   started: an app of the config file that was not running (PM2's startOrReload)
 * @property {string | null} reason
 * @property {WorkerRef[]} started
 * @property {WorkerRef[]} retired
 * @property {WorkerRef[]} failed
 * @property {number} at ms, when it ended
 * @property {number} ms how long it took
 *
 * @typedef {RolloutSummary & { name: string, code: string | null }} RolloutOutcome
 *
 * @typedef {object} ReloadParams
 * @property {string[]} targets
 * @property {string} [cwd]
 * @property {AppConfig[]} [apps] a config file's apps: their new settings
 * @property {Record<string, string>} [shellEnv]
 * @property {(config: AppConfig) => AppConfig} [revise] the settings a targeted app reloads with,
 *   from its own (--node-args); worked out by the Supervisor, which knows what the user changed
 * @property {number} [surge]
 * @property {number} [maxUnavailable]
 */

/**
 * Reload apps one after the other; the apps of a config file that are not running are started
 * (as PM2's reload and startOrReload of a config file do), with `shellEnv` (or none).
 * @param {ReloadScope} scope
 * @param {ReloadParams} params
 */
export async function reloadApps ({ apps: registry, group, startApps, list, now }, { targets, cwd, apps = [], shellEnv, revise, surge = DEFAULT_LIMITS.surge, maxUnavailable = DEFAULT_LIMITS.maxUnavailable }) {
  const limits = { surge, maxUnavailable }
  const problem = checkLimits(limits)
  if (problem) throw new SupError('SUP_ERR_RELOAD_INVALID_LIMITS', { reason: problem })
  // The names of a config file's apps come with their settings (and may not run yet).
  const named = targets.filter((t) => !apps.some((c) => c.name === t))
  const groups = named.length > 0 ? group(named, { cwd }) : /** @type {Map<App, Worker[]>} */ (new Map())
  const missing = apps.filter((config) => !registry.has(config.name))
  for (const config of apps) {
    const app = registry.get(config.name)
    if (app && !groups.has(app)) groups.set(app, [...app.workers])
  }
  const release = lockApps([...groups.keys()], 'reload')
  /** @type {RolloutOutcome[]} */
  const outcomes = []
  try {
    if (missing.length > 0) {
      const began = now()
      await startApps(missing, shellEnv ?? {})
      const ms = now() - began
      for (const config of missing) {
        outcomes.push({ name: config.name, code: null, op: 'reload', strategy: 'restart', outcome: 'started', reason: 'not running: started', started: [], retired: [], failed: [], at: began + ms, ms })
      }
    }
    for (const [app, workers] of groups) {
      const config = apps.find((c) => c.name === app.name) ?? revise?.(app.config)
      outcomes.push(await reloadApp(app, workers, { config, shellEnv, limits }))
      release(app)
    }
  } finally {
    release()
  }
  const names = new Set(outcomes.map((o) => o.name))
  return { apps: outcomes, workers: list().filter((row) => names.has(row.name)) }
}

/**
 * cron_restart or watch fired: replace the app's workers, except those stopped on purpose.
 * Through reload, so a cluster app rolls (each new worker ready before an old one drains:
 * no failed request) where PM2 would restart; a fork-mode app restarts, as in PM2.
 * @param {App} app
 * @param {string} reason
 */
export function reloadByTrigger (app, reason) {
  const workers = app.triggerable()
  if (workers.length === 0) return
  const { name, logger } = app
  logger.info({ app: name, reason, strategy: app.config.exec_mode === 'cluster' ? 'rolling reload' : 'restart' }, 'restarting app')
  let release
  try {
    release = app.lock('reload')
  } catch {
    // A reload or scale already running (by hand, or the previous tick) is left to finish.
    logger.warn({ app: name, reason }, 'skipped: a reload or scale of the app is under way')
    return
  }
  reloadApp(app, workers, { limits: DEFAULT_LIMITS }).finally(release).then((outcome) => {
    if (outcome.outcome === 'aborted') logger.warn({ app: name, reason, failed: outcome.failed }, 'reload aborted: the old workers keep serving')
  }, (err) => {
    logger.warn({ err, app: name, reason }, 'restart failed')
  })
}

/**
 * @param {App} app
 * @param {Worker[]} workers the app's workers to replace (all of them, or those named by id)
 * @param {{ config?: AppConfig, shellEnv?: Record<string, string>, limits: import('./plan.js').RollLimits }} options
 * @returns {Promise<RolloutOutcome>}
 */
async function reloadApp (app, workers, { config: newConfig, shellEnv, limits }) {
  const began = app.effects.now()
  const config = newConfig ? Object.freeze({ ...newConfig }) : app.config
  const env = shellEnv ?? app.shellEnv
  // A runtime that cannot be found refuses the reload before any worker is touched.
  await app.effects.prepare(config, { ...env, ...config.env })
  const next = app.effects.runtime(config, { ...env, ...config.env })
  const whole = workers.length === app.workers.length
  // A cluster app on a new node restarts: the new node's primary cannot listen on the old one's port.
  const moving = whole && config.exec_mode === 'cluster' && movesNode(workers, () => next)
  // Fork mode rolls on the sockets the daemon holds, as long as the new settings ask for the same ones.
  const rolling = !moving && canRoll(app) && (config === app.config || (canRoll({ config, sockets: app.sockets }) &&
    config.exec_mode === app.config.exec_mode && config.listen.join() === app.config.listen.join()))
  const report = app.reporter('reload')
  report({ phase: 'begin', strategy: rolling ? 'rolling' : 'restart', workers: workers.length, ...limits, config: Boolean(newConfig), env: Boolean(shellEnv), ...(moving && next ? { node: { version: next.version, path: next.path } } : {}) })

  let summary
  /** @type {import('../worker/revision.js').Revision | null} */
  let becomes = null
  if (!rolling) {
    // Nothing to hand connections over with: stop, then start, with the new settings. The
    // whole app takes the new revision; some of its workers take the app's own again.
    app.swap(whole ? { config, shellEnv: env } : {}, workers)
    if (whole) app.announce()
    await restartWorkers(workers)
    if (whole && app.workers.length !== config.instances) await resizeApp(app, config.instances, limits, report)
    const reason = moving
      ? `the app moves to node ${next?.version} (${next?.path}): a cluster app changes node by a restart (stop, then start)`
      : 'fork mode: reload falls back to restart (stop, then start)'
    summary = { op: 'reload', strategy: 'restart', outcome: 'restarted', reason, started: [], retired: [], failed: [] }
  } else {
    // The next revision, or the app's own when nothing changes (its new workers then follow the app's).
    const revision = reviseRevision(app.revision, { config, shellEnv: env })
    const instances = whole ? range(config.instances) : workers.map((w) => w.instance)
    const result = await rollWorkers({ app, old: workers, instances, runtime: revision, limits, report })
    const done = result.outcome === 'done'
    // Once the whole app rolled, it is what its new workers are.
    if (done && whole && revision !== app.revision) becomes = revision
    summary = { op: 'reload', strategy: 'rolling', outcome: done ? 'reloaded' : 'aborted', ...pick(result) }
  }
  return app.finishRollout(report, /** @type {Omit<RolloutSummary, 'at' | 'ms'>} */ (summary), began, becomes)
}

/**
 * sup scale: up adds ready workers, down retires the highest instances with the drain ladder.
 * @param {App} app
 * @param {string} spec "4", "+2" or "-1"
 * @returns {Promise<RolloutOutcome & { from: number, to: number }>}
 */
export async function scaleApp (app, spec) {
  // Checked first: during a rollout the app briefly has more workers than its size.
  const release = app.lock('scale')
  try {
    const from = app.workers.length
    const scale = resolveScale(spec, from)
    if ('error' in scale) throw new SupError('SUP_ERR_APP_SCALE_INVALID', { name: app.name, value: spec, reason: scale.error })
    const began = app.effects.now()
    const report = app.reporter('scale')
    const strategy = canRoll(app) ? 'rolling' : 'restart'
    if (scale.to === from) {
      const summary = app.finishRollout(report, { op: 'scale', strategy, outcome: 'unchanged', reason: `already ${from} worker${from === 1 ? '' : 's'}`, started: [], retired: [], failed: [] }, began)
      return { ...summary, from, to: from }
    }
    report({ phase: 'begin', from, to: scale.to })
    const result = await resizeApp(app, scale.to, DEFAULT_LIMITS, report)
    const outcome = result.outcome === 'done' ? 'scaled' : 'aborted'
    return { ...app.finishRollout(report, { op: 'scale', strategy, outcome, ...pick(result) }, began), from, to: app.workers.length }
  } finally {
    release()
  }
}

/**
 * Gracefully replace one worker: start its successor on the same instance, wait until it is
 * ready, then drain and retire the old one (a restart in fork mode). Counted as a restart
 * either way: the successor takes over the count of the worker it replaces, one more. For
 * callers such as max_memory_restart; refused with SUP_ERR_RELOAD_IN_PROGRESS while the app
 * has a rollout.
 * @param {App} app
 * @param {Worker} worker
 * @returns {Promise<RolloutOutcome>}
 */
export async function replaceWorker (app, worker) {
  const release = app.lock('replace')
  const began = app.effects.now()
  const report = app.reporter('replace')
  try {
    if (!canRoll(app)) {
      await restartWorkers([worker])
      return app.finishRollout(report, { op: 'replace', strategy: 'restart', outcome: 'restarted', reason: null, started: [], retired: [], failed: [] }, began)
    }
    // The successor takes over the id and the count, plus one (rollWorkers).
    const result = await rollWorkers({ app, old: [worker], instances: [worker.instance], limits: DEFAULT_LIMITS, report })
    return app.finishRollout(report, { op: 'replace', strategy: 'rolling', outcome: result.outcome === 'done' ? 'reloaded' : 'aborted', ...pick(result) }, began)
  } finally {
    release()
  }
}

/**
 * Bring an app to `to` workers: new ones on the lowest free instances, or retire the highest.
 * @param {App} app
 * @param {number} to
 * @param {import('./plan.js').RollLimits} limits
 * @param {(progress: Record<string, unknown>) => void} report
 */
async function resizeApp (app, to, limits, report) {
  const from = app.workers.length
  const byInstanceDesc = [...app.workers].sort((a, b) => b.instance - a.instance || b.id - a.id)
  const old = to < from ? byInstanceDesc.slice(0, from - to) : []
  const instances = to > from ? freeInstances(app.workers.map((w) => w.instance), to - from) : []
  const result = await rollWorkers({ app, old, instances, limits, report })
  app.swap({ config: Object.freeze({ ...app.config, instances: app.workers.length }) })
  app.announce()
  return result
}

/** @param {import('./rollout.js').RolloutResult} result */
function pick ({ reason, started, retired, failed }) {
  return { reason, started, retired, failed }
}

/** @param {number} n */
const range = (n) => Array.from({ length: n }, (_, i) => i)
