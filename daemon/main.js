// @ts-check
// The detached daemon's entry point. Started by the CLI (own session, stdout/stderr to
// daemon.log, an IPC channel for its first word: ipc/daemon-handshake.js), or in the
// foreground by hand.
import { fstatSync, lstatSync } from 'node:fs'
import { createRequire } from 'node:module'
import { failedWord, readyWord } from '../ipc/daemon-handshake.js'
import { toSupError } from '../ipc/errors.js'
import { INHERITED_FDS_VAR, parseFdList } from '../ipc/inherited-fds.js'
import { readListenFds } from '../ipc/listen-fds.js'
import { resolvePaths } from '../ipc/paths.js'
import { openDaemon, survivePanics } from './daemon.js'
import { closeStrayFds } from './stray-fds.js'

// First: what the CLI's own parent left open, as the CLI names it, must not reach the workers
// (daemon/stray-fds.js).
/** The IPC channel to the CLI that started us (its first word: ipc/daemon-handshake.js). */
const channelFd = /** @type {{ channel?: { fd?: number } }} */ (/** @type {unknown} */ (process)).channel?.fd
const strays = closeStrayFds({
  listed: parseFdList(process.env[INHERITED_FDS_VAR]),
  keep: [...(readListenFds(process.env, process.pid)?.fds ?? []), ...(channelFd === undefined ? [] : [channelFd])]
})
delete process.env[INHERITED_FDS_VAR]

// CommonJS dependencies are require()d: an ESM import of them starts Node's CJS export
// lexer first, a cost every daemon start paid for nothing (docs/benchmarks.md, cold start).
/** @type {typeof import('pino').default} */
const pino = createRequire(import.meta.url)('pino')

/** @param {object} message */
const notify = (message) => {
  if (!process.send) return
  process.send(message, undefined, {}, () => process.disconnect?.())
}

const { daemonLog } = resolvePaths(process.env)
// Started by the CLI, stdout is daemon.log: log to it by path instead, so the log can be
// reopened if SUP_HOME is deleted under the daemon (daemon/home-guard.js). By hand, stdout.
const destination = isFile(1, daemonLog) ? pino.destination({ dest: daemonLog, append: true, sync: true, mode: 0o600 }) : undefined
// A line that cannot be written (disk full) is lost, never an exception: the daemon must not
// die of its own log. SonicBoom goes on with the next line.
destination?.on('error', () => {})
const logger = pino({ base: { pid: process.pid } }, destination)
if (strays.length > 0) logger.info({ fds: strays }, `closed ${strays.length} descriptor(s) inherited from the process that started sup, so that no worker inherits them`)
/** @type {import('./daemon.js').Daemon | null} */
let daemon = null
const stop = async (/** @type {string} */ reason) => {
  await daemon?.shutdown(reason)
  // A client that never answers the close handshake must not keep a stopped daemon alive.
  process.exit(0)
}

// No top-level await, so that main.cjs can require() this module.
openDaemon({ env: process.env, argv: process.argv.slice(2), logger, persist: true, onKill: stop, reopenLog: () => destination?.reopen() }).then((opened) => {
  daemon = opened
  process.on('SIGTERM', () => stop('SIGTERM'))
  process.on('SIGINT', () => stop('SIGINT'))
  process.on('SIGHUP', () => logger.info('SIGHUP ignored'))
  survivePanics(logger)
  notify(readyWord(process.pid))
}, (err) => {
  const supErr = toSupError(err)
  notify(failedWord(supErr))
  if (supErr.code === 'SUP_ERR_DAEMON_ALREADY_RUNNING') logger.warn({ code: supErr.code }, supErr.message)
  else {
    logger.error({ err }, 'cannot start the daemon')
    process.exitCode = 1
  }
})

/**
 * @param {number} fd
 * @param {string} path
 */
function isFile (fd, path) {
  try {
    const a = fstatSync(fd)
    // lstat: a symlink at daemon.log is not the file the CLI opened (it opens without following one)
    const b = lstatSync(path)
    return a.ino === b.ino && a.dev === b.dev
  } catch {
    return false
  }
}
