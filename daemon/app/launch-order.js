// @ts-check
// The order in which the workers of a start, a resurrect or a restore begin: each app once its
// dependencies (depends_on) are ready. The Supervisor hands it the batch and its registry to
// read; it dispatches to the workers and changes no registry.
import { STATUS, isDecided } from '../worker/lifecycle.js'
import { tolerateTimeout } from '../until.js'
import { settle } from './app.js'

/**
 * @typedef {import('./app.js').App} App
 * @typedef {import('../worker/worker.js').Worker} Worker
 */

/**
 * Start workers of apps just registered, each app once its dependencies (depends_on) are
 * ready: every worker online, which with a readiness probe means the probe passed. A
 * dependency in the batch is waited for through its own launch, one the daemon runs already
 * as it is, each at most its start deadline; names the daemon does not know are left out (a
 * restore whose dependency was not saved). An app whose dependencies are not ready is held,
 * as `sup stop` leaves it (`sup restart` starts it). Shared by `sup start`, `sup resurrect` and
 * the restore after a crash, so all three start in the same order. An app without
 * dependencies starts before this returns its promise.
 * @param {Array<{ app: App, workers: Worker[] }>} batch workers: those to start
 * @param {{ apps: ReadonlyMap<string, App>, logger: import('pino').Logger }} registry the
 *   daemon's apps, read when a dependency is waited for (the Supervisor alone changes them)
 */
export async function launchInOrder (batch, { apps, logger }) {
  /** @type {Map<string, Promise<void>>} */
  const launches = new Map()
  /** @type {Map<string, Promise<boolean>>} */
  const readiness = new Map()
  const isReady = async (/** @type {string} */ name) => {
    await null // every launch of the batch is registered by then
    await launches.get(name)
    const app = apps.get(name)
    if (!app) return false
    await settle(app.workers, isDecided).catch(tolerateTimeout)
    return app.workers.length > 0 && app.workers.every((w) => w.state.status === STATUS.ONLINE)
  }
  const readyOf = (/** @type {string} */ name) => {
    if (!readiness.has(name)) readiness.set(name, isReady(name))
    return /** @type {Promise<boolean>} */ (readiness.get(name))
  }
  const launch = async (/** @type {{ app: App, workers: Worker[] }} */ { app, workers }) => {
    const deps = workers.length > 0 ? (app.config.depends_on ?? []).filter((name) => apps.has(name)) : []
    const verdicts = deps.length > 0 ? await Promise.all(deps.map(readyOf)) : []
    const unready = deps.filter((_, i) => !verdicts[i])
    if (unready.length > 0) logger.warn({ app: app.name, unready }, 'not started: a dependency (depends_on) is not ready')
    // Deleted, or stopped by another command, while it waited: leave it be.
    if (apps.get(app.name) !== app) return
    for (const worker of workers) {
      if (worker.state.held) continue
      worker.dispatch({ type: unready.length === 0 ? 'start' : 'hold' })
    }
  }
  for (const entry of batch) launches.set(entry.app.name, launch(entry))
  await Promise.all(launches.values())
}
