// @ts-check
// RPC method → handler. Params arrive already validated against ipc/methods.js.
import { constants } from 'node:os'
import { SupError } from '../ipc/errors.js'
import { DEFAULT_METRICS_HOST } from '../ipc/metrics.js'
import { PROTOCOL_VERSION } from '../ipc/methods.js'

/**
 * @typedef {object} HandlerContext
 * @property {import('./supervisor.js').Supervisor} supervisor
 * @property {import('./metrics/sampler.js').Sampler} sampler
 * @property {import('./metrics/endpoint.js').MetricsEndpoint} endpoint
 * @property {{ version: string, pid: number, startedAt: number, home: string, balance: import('../ipc/balance.js').Balance }} daemon
 * @property {import('./dump/persistence.js').Persistence | null} persistence null for a daemon that keeps no dump (sup-runtime)
 * @property {import('./settings.js').Settings} settings `sup set` values by app name
 * @property {Promise<void>} ready settles once the dump has been read
 * @property {() => void} requestShutdown
 * @property {(topics: string[], apps: string[] | undefined) => void} subscribe subscribe the calling connection
 * @property {import('./events/journal.js').EventJournal} events the supervisor's decisions kept (sup events)
 * @property {import('./cgroups/cgroups.js').Cgroups} [cgroups] how workers are contained (a cgroup each, or the token sweep)
 *
 * @typedef {(params: any, ctx: HandlerContext) => unknown} Handler
 */

/** How many of an app's last events `describe` shows. */
const DESCRIBE_EVENTS = 8

/** @type {Record<string, Handler>} */
export const HANDLERS = {
  hello (params, { daemon }) {
    if (params.protocol !== PROTOCOL_VERSION) {
      throw new SupError('SUP_ERR_IPC_VERSION_MISMATCH', { daemon: PROTOCOL_VERSION, client: params.protocol })
    }
    return { protocol: PROTOCOL_VERSION, version: daemon.version, pid: daemon.pid, balance: daemon.balance }
  },
  'daemon.ping' (params, { daemon, supervisor, persistence }) {
    return { pong: true, pid: daemon.pid, version: daemon.version, uptime: Date.now() - daemon.startedAt, apps: supervisor.apps.size, home: daemon.home, balance: daemon.balance, recovery: persistence?.recovery ?? null }
  },
  'daemon.kill' (params, { requestShutdown, daemon }) {
    requestShutdown()
    return { pid: daemon.pid }
  },
  'app.start': (params, { supervisor }) => supervisor.start(params.apps, params.shellEnv ?? {}, { existing: params.existing, given: params.given }),
  'app.stop': (params, { supervisor }) => supervisor.stop(params.targets, { cwd: params.cwd }),
  'app.restart': (params, { supervisor }) => supervisor.restart(params.targets, { shellEnv: params.shellEnv, cwd: params.cwd, update: params.update, toggleWatch: params.toggleWatch }),
  'app.reload': (params, { supervisor }) => supervisor.reload(params),
  'app.scale': (params, { supervisor }) => supervisor.scale(params.target, params.count),
  'app.delete': (params, { supervisor }) => supervisor.delete(params.targets, { cwd: params.cwd }),
  'app.reset': (params, { supervisor }) => supervisor.reset(params.targets, { cwd: params.cwd }),
  'app.list': (params, { supervisor }) => supervisor.list(),
  'events.list' (params, { supervisor, events }) {
    const filter = eventFilter(params.target, supervisor)
    // apps: what a follower subscribes to (a namespace stands for its apps' names)
    return { events: events.list({ ...filter, limit: params.limit }), apps: filter.apps ? [...filter.apps] : null }
  },

  'app.describe' (params, { supervisor, settings, events, cgroups }) {
    const described = supervisor.describe(params.target)
    return { ...described, settings: settings.of(described.name), events: events.list({ apps: new Set([described.name]), limit: DESCRIBE_EVENTS }), containment: cgroups?.describe() ?? null }
  },
  // What each worker's process was given: its env on the settings it runs with.
  'app.env': (params, { supervisor }) => supervisor.resolve([params.target], { cwd: params.cwd }).map((w) => ({
    id: w.id,
    name: w.config.name,
    instance: w.instance,
    env: w.env()
  })),
  'app.signal' (params, { supervisor }) {
    const signal = normalizeSignal(params.signal)
    return supervisor.signal(params.targets, signal, { cwd: params.cwd })
  },
  'logs.tail' (params, { supervisor }) {
    const lines = params.lines ?? 15
    const stream = params.stream ?? 'both'
    const sinks = supervisor.logSinks(params.target)
    const id = params.target && /^\d+$/.test(params.target) && !supervisor.apps.has(params.target) ? Number(params.target) : null
    const entries = sinks.flatMap((sink) => sink.ring.last(lines, (e) => (stream === 'both' || e.stream === stream) && (id === null || e.id === id)))
    return entries.sort((a, b) => a.time - b.time).slice(-lines)
  },
  async 'logs.reopen' (params, { supervisor }) {
    return { reopened: await supervisor.logging.files.reopenAll() }
  },
  async 'logs.flush' (params, { supervisor }) {
    const sinks = supervisor.logSinks(params.target)
    await Promise.all(sinks.map((sink) => sink.flush()))
    return { flushed: sinks.map((sink) => sink.config.name) }
  },
  'dump.save': (params, { persistence }) => needDump(persistence).save({ force: params.force }),
  async 'dump.resurrect' (params, { persistence, supervisor }) {
    const { restore, ...found } = await needDump(persistence).proposeResurrect(params.shellEnv ?? {})
    const { refusals, ...done } = await supervisor.resurrect(restore)
    return { ...found, ...done, warnings: [...found.warnings, ...refusals] }
  },
  async 'settings.set' (params, { supervisor, settings }) {
    await settings.set(params.entries)
    // As PM2's `pm2 set`: the app of that name restarts with its new values, once
    /** @type {string[]} */
    const apps = [...new Set(params.entries.map((/** @type {{ app: string }} */ e) => e.app))]
    const restarted = apps.filter((app) => supervisor.apps.has(app))
    for (const app of restarted) await supervisor.restart([app])
    return { entries: params.entries, restarted }
  },
  async 'settings.unset' (params, { settings }) {
    return { app: params.app, removed: await settings.unset(params.app, params.key ?? null) }
  },
  'settings.get': (params, { settings }) => params.app ? { [params.app]: settings.of(params.app) } : settings.data,
  'dump.status': (params, { persistence }) => persistence ? { enabled: true, ...persistence.status({ unreported: params.unreported }) } : { enabled: false },
  'metrics.history' (params, { supervisor, sampler }) {
    const workers = params.target ? supervisor.resolve([params.target]) : supervisor.match('all')
    return workers.map((w) => ({ id: w.id, name: w.config.name, instance: w.instance, interval: sampler.interval, ...sampler.historyOf(w.id).last(params.points) }))
  },
  'metrics.serve': (params, { endpoint }) => endpoint.open({ port: params.port, host: params.host ?? DEFAULT_METRICS_HOST }),
  async 'metrics.close' (params, { endpoint }) {
    return { closed: await endpoint.close() }
  },
  'metrics.status': (params, { endpoint, sampler }) => ({ ...endpoint.status(), sample_interval: sampler.interval }),
  // Apps need not exist yet: `sup start` subscribes to the app it is about to create.
  subscribe (params, { subscribe }) {
    subscribe(params.topics, params.apps)
    return { topics: params.topics }
  }
}

/**
 * "usr2", "SIGUSR2" and "12" all name SIGUSR2.
 * @param {string} input
 * @returns {NodeJS.Signals}
 */
export function normalizeSignal (input) {
  const upper = input.toUpperCase()
  const name = /^\d+$/.test(upper)
    ? Object.keys(constants.signals).find((key) => constants.signals[/** @type {NodeJS.Signals} */ (key)] === Number(upper))
    : upper.startsWith('SIG') ? upper : `SIG${upper}`
  if (!name || !(name in constants.signals)) throw new SupError('SUP_ERR_APP_SIGNAL_INVALID', { signal: input })
  return /** @type {NodeJS.Signals} */ (name)
}

/**
 * @param {import('./dump/persistence.js').Persistence | null} persistence
 * @returns {import('./dump/persistence.js').Persistence}
 */
function needDump (persistence) {
  if (!persistence) throw new SupError('SUP_ERR_DUMP_DISABLED')
  return persistence
}

/**
 * Which events a target names: a worker id, the apps it resolves to, or an app the daemon no
 * longer runs (a deleted app's history stays listable by its name).
 * @param {string | null | undefined} target
 * @param {import('./supervisor.js').Supervisor} supervisor
 * @returns {{ apps?: Set<string>, ids?: Set<number> }}
 */
function eventFilter (target, supervisor) {
  if (!target || target === 'all') return {}
  if (/^\d+$/.test(target)) return { ids: new Set([Number(target)]) }
  const named = supervisor.match(target)
  return { apps: named.length > 0 ? new Set(named.map((w) => w.config.name)) : new Set([target]) }
}
