// @ts-check
// The daemon's start-up and shutdown, shared by the detached daemon (daemon/main.js) and the
// foreground one for containers (bin/sup-runtime.js): take the lock, read the dump, open the
// socket, supervise; on shutdown stop every app, mark the dump cleanly stopped, close.
import { mkdirSync, readFileSync } from 'node:fs'
import { ensureHome } from '../ipc/safe-fs.js'
import { balanceFromEnv } from '../ipc/balance.js'
import { LISTEN_VARS } from '../ipc/listen-fds.js'
import { resolvePaths } from '../ipc/paths.js'
import { guardHome } from './home-guard.js'
import { acquireLock } from './lock.js'
import { readLogDefaults } from './logs/defaults.js'
import { MetricsEndpoint } from './metrics/endpoint.js'
import { EventTallies } from './metrics/event-tallies.js'
import { guardMemory } from './metrics/memory-guard.js'
import { agentIntervalFor, metricsEvent, Sampler } from './metrics/sampler.js'
import { readDaemonOptions } from './options.js'
import { writePidCopy } from './pid-copy.js'
import { Persistence } from './dump/persistence.js'
import { EventJournal } from './events/journal.js'
import { rolloutEvent } from './events/rollout-event.js'
import { startServer } from './server.js'
import { Settings } from './settings.js'
import { realEffects } from './worker/effects.js'
import { InheritedSockets } from './sockets/inherited-sockets.js'
import { Supervisor } from './supervisor.js'
import { endPreviousCgroups, openCgroups } from './cgroups/open.js'

export const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/**
 * @typedef {object} Daemon
 * @property {import('../ipc/paths.js').SupPaths} paths
 * @property {Supervisor} supervisor
 * @property {Persistence | null} persistence
 * @property {Sampler} sampler
 * @property {EventJournal} events the supervisor's decisions and their reasons
 * @property {Promise<void>} ready settles once the dump has been read (and a crash recovered from)
 * @property {(reason: string) => Promise<void>} shutdown stop every app, then close; safe to call twice
 */

/**
 * Open a daemon. Throws a SupError when another daemon holds this SUP_HOME, or the socket
 * cannot be opened.
 * @param {object} options
 * @param {NodeJS.ProcessEnv} options.env
 * @param {string[]} [options.argv] the daemon's own flags (--sample-interval, --metrics-port, --metrics-host)
 * @param {import('pino').Logger} options.logger
 * @param {boolean} options.persist keep dump.json and recover from it (off for sup-runtime,
 *   whose apps come from its command line every time)
 * @param {(reason: string) => void} options.onKill what `sup kill` does: shut down, then exit
 * @param {() => void} [options.reopenLog] reopen daemon.log at its path (after SUP_HOME was deleted)
 * @returns {Promise<Daemon>}
 */
export async function openDaemon ({ env, argv = [], logger, persist, onKill, reopenLog }) {
  const paths = resolvePaths(env)
  ensureHome(paths, { create: true })
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 })
  const balance = balanceFromEnv(env)
  const { sampleInterval, metrics, shutdownWithMessage, pidFile } = readDaemonOptions(argv, env, paths.home)
  const releaseLock = acquireLock(paths.pidFile, paths.home)
  const removePidCopy = await writePidCopy(pidFile, logger)
  const settings = new Settings({ file: paths.settings, logger })
  const cgroups = openCgroups({ home: paths.home, env, logger })

  const logDefaults = readLogDefaults(env, (message) => logger.warn(`${message}; using the default`))
  // Socket activation: systemd's sockets are the daemon's alone; no app or helper inherits
  // the variables (an app with `listen` gets its own, docs/deploy.md#socket-activation).
  const inherited = InheritedSockets.fromEnv(env, process.pid, { logger })
  for (const key of LISTEN_VARS) delete env[key]
  /** @type {Awaited<ReturnType<typeof startServer>> | null} the server, once it listens */
  let serving = null
  const publishLog = (/** @type {any} */ entry) => serving?.publish('log', entry)
  /** @type {Supervisor} */
  const supervisor = new Supervisor({
    logsDir: paths.logs,
    logger,
    // Every worker's env takes its app's `sup set` values, read at each start.
    effects: realEffects({ balance, settings: (name) => settings.of(name), cgroups, warn: (message) => logger.warn(message) }),
    // Log lines are cut and decoded one by one only while someone follows them: a subscriber
    // on the socket, or a listener in this process (sup-runtime prints every line).
    linesWanted: () => serving === null || serving.wants('log') || supervisor.listeners('log').some((listener) => listener !== publishLog),
    logDefaults,
    inherited,
    shutdownWithMessage,
    // The agent reports on a multiple of the sampler's cadence; without sampling it stays quiet.
    agentEnv: sampleInterval > 0 ? { SUP_AGENT_METRICS_MS: String(agentIntervalFor(sampleInterval)) } : {}
  })
  // sup-runtime keeps no files but its logs: its events live as long as it does.
  const events = new EventJournal({ file: persist ? paths.events : null, logger })
  const loaded = events.load().catch((err) => logger.warn({ err }, 'could not read the events file'))
  const workers = () => [...supervisor.apps.values()].flatMap((app) => app.workers)
  const { usage } = supervisor.stores
  const sampler = new Sampler({ workers, interval: sampleInterval, logger, stores: supervisor.stores })
  // Counted from now: the events read back from the file are history, not this daemon's counts.
  const tallies = new EventTallies()
  events.on('event', (event) => tallies.count(event))
  const endpoint = new MetricsEndpoint({ logger, collect: () => workers().map((worker) => exportWorker(worker, usage.get(worker))), tallies: () => tallies.families() })
  const persistence = persist ? new Persistence({ file: paths.state, saveFile: paths.dump, supervisor, logger, version, daemonEnv: env }) : null
  // Requests wait for this (server.js), so `sup ls` right after a crash shows the restored apps.
  // Persistence proposes what the dump held; the Supervisor carries it out, not awaited past
  // the registering: a dependent may wait for its dependencies up to their start deadlines.
  // A dead daemon's workers get their stop ladder first (persistence), then whatever is still in
  // its cgroups ends, before any app is restored or started.
  const ready = loaded.then(() => persistence?.open()).finally(() => endPreviousCgroups(cgroups, { home: paths.home, logger })).then((proposal) => {
    if (!proposal) return
    return supervisor.restore(proposal).then(({ launched, refusals }) => {
      for (const refusal of refusals) persistence?.warn(refusal)
      launched.catch((err) => logger.error({ err }, 'restoring apps failed'))
    })
  }).catch((err) => {
    logger.error({ err }, 'could not read the dump; starting without it')
  })
  const startedAt = Date.now()
  /** @type {Awaited<ReturnType<typeof startServer>>} */
  let server
  try {
    server = await startServer({
      socketPath: paths.socket,
      logger,
      context: {
        supervisor,
        persistence,
        settings,
        sampler,
        endpoint,
        events,
        ready,
        cgroups,
        daemon: { version, pid: process.pid, startedAt, home: paths.home, balance },
        // Answer the request first, then stop everything.
        requestShutdown: () => setImmediate(() => onKill('sup kill'))
      }
    })
  } catch (err) {
    removePidCopy()
    releaseLock()
    throw err
  }
  serving = server
  supervisor.on('app.state', (row) => server.publish('app.state', row))
  supervisor.on('log', publishLog)
  supervisor.on('reload.progress', (progress) => server.publish('reload.progress', progress))
  events.on('event', (event) => server.publish('event', event))
  // Every decision of the supervisor and its reason, from the workers' lifecycles and the
  // rollouts, lands in the journal (sup events) in one place.
  supervisor.on('event', (event) => events.record(event))
  supervisor.on('reload.progress', (progress) => { const event = rolloutEvent(progress); if (event) events.record(event) })
  // The event is a whole row (log paths, status, figures): built only when someone takes it.
  sampler.on('sample', (worker) => {
    const app = supervisor.apps.get(worker.config.name)
    if (app && server.wants('metrics')) server.publish('metrics', metricsEvent(app.row(worker), usage.get(worker)))
  })
  guardMemory({ sampler, usage }).on('decision', supervisor.carryOut)
  sampler.start()
  const stopGuard = guardHome({
    paths,
    logger,
    socketIno: () => server.socketIno(),
    restore: async () => {
      reopenLog?.()
      // Throws SUP_ERR_DAEMON_ALREADY_RUNNING when a second daemon took the empty home first.
      acquireLock(paths.pidFile, paths.home)
      await server.rebind()
      await supervisor.logging.files.reopenAll()
      persistence?.schedule()
    }
  })
  if (metrics) {
    // A port that cannot be opened is logged, not fatal: supervising matters more than exporting.
    await endpoint.open(metrics).catch((err) => logger.error({ err }, 'cannot open the metrics endpoint'))
  }

  /** @type {Promise<void> | null} */
  let stopping = null
  const shutdown = (/** @type {string} */ reason) => {
    stopping ??= (async () => {
      logger.info({ reason }, 'daemon stopping')
      stopGuard()
      sampler.stop()
      await endpoint.close()
      await ready
      const writeDump = persistence?.beginShutdown()
      await supervisor.stopAll()
      cgroups.close()
      await writeDump?.()
      await events.close()
      removePidCopy()
      releaseLock()
      logger.info('daemon stopped')
      // Closing the socket is the CLI's sign that everything is down, so it comes last.
      await server.close()
    })()
    return stopping
  }

  logger.info({ home: paths.home, version, socket: paths.socket, balance, persist, sampleInterval }, 'daemon started')
  return { paths, supervisor, persistence, sampler, events, ready, shutdown }
}

/**
 * What the Prometheus endpoint needs of a worker.
 * @param {import('./worker/worker.js').Worker} worker
 * @param {import('./metrics/usage.js').WorkerUsage} usage its last sample
 * @returns {import('./metrics/prometheus.js').ExportedWorker}
 */
function exportWorker (worker, usage) {
  const { state } = worker
  return {
    app: worker.config.name,
    instance: worker.instance,
    id: worker.id,
    status: state.status,
    running: state.pid !== null,
    restarts: state.restarts,
    startedAt: state.startedAt,
    usage,
    ready: worker.config.readiness ? state.probeReady : null,
    livenessRestarts: state.livenessRestarts,
    maxMemoryRestart: worker.config.max_memory_restart ?? null,
    limits: { max_memory: worker.config.max_memory, cpu_limit: worker.config.cpu_limit }
  }
}

/**
 * Keep supervising through bugs in one request: log them instead of dying.
 * @param {import('pino').Logger} logger
 */
export function survivePanics (logger) {
  process.on('uncaughtException', (err) => logger.error({ err }, 'uncaught exception'))
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'))
}
