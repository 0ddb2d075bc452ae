// @ts-check
// The daemon's entry point: take the lock, open the socket, supervise until told to stop.
// Started detached by the CLI (stdout/stderr go to daemon.log), or in the foreground.
import { mkdirSync, readFileSync } from 'node:fs'
import pino from 'pino'
import { resolvePaths } from '../ipc/paths.js'
import { balanceFromEnv } from '../ipc/balance.js'
import { toSupError } from '../ipc/errors.js'
import { acquireLock } from './lock.js'
import { readLogDefaults } from './log-defaults.js'
import { startServer } from './server.js'
import { setBalance } from './spawn-worker.js'
import { Supervisor } from './supervisor.js'

const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))

/**
 * Run the daemon until SIGTERM/SIGINT or `sup kill`.
 * @param {{ env?: NodeJS.ProcessEnv, notify?: (message: object) => void }} [options]
 */
export async function runDaemon ({ env = process.env, notify = () => {} } = {}) {
  const paths = resolvePaths(env)
  mkdirSync(paths.home, { recursive: true, mode: 0o700 })
  mkdirSync(paths.logs, { recursive: true, mode: 0o700 })
  const logger = pino({ base: { pid: process.pid } })

  let releaseLock
  let balance
  try {
    balance = balanceFromEnv(env)
    releaseLock = acquireLock(paths.pidFile, paths.home)
  } catch (err) {
    const supErr = toSupError(err)
    notify({ sup: 'daemon-failed', error: supErr.toJSON() })
    logger.warn({ code: supErr.code }, supErr.message)
    return
  }
  setBalance(balance)

  const logDefaults = readLogDefaults(env, (message) => logger.warn(`${message}; using the default`))
  const supervisor = new Supervisor({ logsDir: paths.logs, logger, logDefaults })
  const startedAt = Date.now()
  let shuttingDown = false
  /** @type {Awaited<ReturnType<typeof startServer>>} */
  let server

  const shutdown = async (/** @type {string} */ reason) => {
    if (shuttingDown) return
    shuttingDown = true
    logger.info({ reason }, 'daemon stopping')
    await supervisor.stopAll()
    releaseLock?.()
    logger.info('daemon stopped')
    // Closing the socket is the CLI's sign that everything is down, so it comes last.
    await server?.close()
    // A client that never answers the close handshake must not keep a stopped daemon alive.
    process.exit(0)
  }

  try {
    server = await startServer({
      socketPath: paths.socket,
      logger,
      context: {
        supervisor,
        daemon: { version, pid: process.pid, startedAt, home: paths.home, balance },
        // Answer the request first, then stop everything.
        requestShutdown: () => setImmediate(() => shutdown('sup kill'))
      }
    })
  } catch (err) {
    releaseLock()
    notify({ sup: 'daemon-failed', error: toSupError(err).toJSON() })
    logger.error({ err }, 'cannot open the socket')
    process.exitCode = 1
    return
  }

  supervisor.on('app.state', (row) => server.publish('app.state', row))
  supervisor.on('log', (entry) => server.publish('log', entry))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGHUP', () => logger.info('SIGHUP ignored'))
  // The daemon outlives bugs in one request: log them and keep supervising.
  process.on('uncaughtException', (err) => logger.error({ err }, 'uncaught exception'))
  process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled rejection'))

  logger.info({ home: paths.home, version, socket: paths.socket, balance }, 'daemon started')
  notify({ sup: 'daemon-ready', pid: process.pid })
}

runDaemon({
  notify: (message) => {
    if (!process.send) return
    process.send(message, undefined, {}, () => process.disconnect?.())
  }
})
