// @ts-check
// Connect to the daemon of this SUP_HOME, starting it first when asked to and none runs.
import { spawn } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { SupError } from '../ipc/errors.js'
import { PROTOCOL_VERSION } from '../ipc/methods.js'
import { connect } from '../ipc/transport.js'

const DAEMON_MAIN = fileURLToPath(new URL('../daemon/main.js', import.meta.url))
/** How long a daemon may take to report ready before we give up on it. */
const START_TIMEOUT = 10_000
/** Errors that mean "nobody is listening on the socket". */
const NOT_RUNNING = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK'])

/** A daemon start begun early (prestartDaemon); connectDaemon takes it over. @type {Promise<unknown> | null} */
let starting = null

/**
 * Start the daemon now, before the rest of the command has loaded, when its socket does not
 * even exist: the daemon boots on one core while the CLI loads on the other, and a cold
 * `sup ls` waits for the slower of the two instead of both (docs/benchmarks.md). Only for
 * commands that start the daemon anyway. A socket file without a daemon behind it is left
 * to connectDaemon, which finds out by connecting.
 * @param {import('../ipc/paths.js').SupPaths} paths
 */
export function prestartDaemon (paths) {
  if (starting || existsSync(paths.socket)) return
  // Kept as a value: connectDaemon rethrows it, so it is never an unhandled rejection.
  starting = startDaemon(paths).then(() => null, (err) => err)
}

/**
 * @param {import('../ipc/paths.js').SupPaths} paths
 * @param {{ start?: boolean, daemonEnv?: Record<string, string> }} [options] start a daemon when
 *   none runs, with `daemonEnv` added to its environment (e.g. SUP_BALANCE)
 * @returns {Promise<import('../ipc/transport.js').Connection>}
 */
export async function connectDaemon (paths, { start = false, daemonEnv = {} } = {}) {
  let conn
  try {
    if (starting && start) {
      const failure = await starting
      starting = null
      if (failure) throw failure
      conn = await connectWithRetry(paths.socket)
    } else {
      conn = await connect(paths.socket)
    }
  } catch (err) {
    if (err instanceof SupError) throw err
    if (!NOT_RUNNING.has(/** @type {NodeJS.ErrnoException} */ (err).code ?? '')) throw err
    if (!start) throw new SupError('SUP_ERR_DAEMON_UNREACHABLE', { home: paths.home })
    await startDaemon(paths, daemonEnv)
    conn = await connectWithRetry(paths.socket)
  }
  await conn.request('hello', { protocol: PROTOCOL_VERSION, client: 'sup-cli' }).catch(async (err) => {
    await conn.close()
    throw err
  })
  return conn
}

/**
 * Spawn the daemon detached, in its own session, and wait for its word over IPC.
 * @param {import('../ipc/paths.js').SupPaths} paths
 * @param {Record<string, string>} [daemonEnv] added to our environment for the daemon
 */
export async function startDaemon (paths, daemonEnv = {}) {
  mkdirSync(paths.home, { recursive: true, mode: 0o700 })
  const log = openSync(paths.daemonLog, 'a', 0o600)
  const child = spawn(process.execPath, [DAEMON_MAIN], {
    detached: true,
    stdio: ['ignore', log, log, 'ipc'],
    cwd: paths.home,
    env: { ...process.env, ...daemonEnv }
  })
  closeSync(log)
  try {
    const message = await waitForWord(child, paths.daemonLog)
    if (message.sup === 'daemon-failed' && message.error?.code !== 'SUP_ERR_DAEMON_ALREADY_RUNNING') {
      throw SupError.fromJSON(message.error)
    }
  } finally {
    if (child.connected) child.disconnect()
    child.unref()
  }
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} log
 * @returns {Promise<any>}
 */
function waitForWord (child, log) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail('it did not report ready within 10 s'), START_TIMEOUT)
    const fail = (/** @type {string} */ reason) => {
      clearTimeout(timer)
      reject(new SupError('SUP_ERR_DAEMON_START_FAILED', { reason, log }))
    }
    child.once('message', (message) => {
      clearTimeout(timer)
      resolve(message)
    })
    child.once('error', (err) => fail(err.message))
    child.once('exit', (code, signal) => fail(`it exited with ${signal ?? `code ${code}`}`))
  })
}

/**
 * When another CLI won the race to start the daemon, its socket may be a moment away.
 * @param {string} socketPath
 */
async function connectWithRetry (socketPath) {
  const deadline = Date.now() + START_TIMEOUT
  for (let delay = 10; ; delay = Math.min(delay * 2, 200)) {
    try {
      return await connect(socketPath)
    } catch (err) {
      if (Date.now() > deadline || !NOT_RUNNING.has(/** @type {NodeJS.ErrnoException} */ (err).code ?? '')) throw err
      await new Promise((resolve) => setTimeout(resolve, delay))
    }
  }
}

/**
 * The pid recorded in daemon.pid, if any.
 * @param {import('../ipc/paths.js').SupPaths} paths
 */
export function readDaemonPid (paths) {
  try {
    const pid = Number.parseInt(readFileSync(paths.pidFile, 'utf8'), 10)
    return Number.isInteger(pid) ? pid : null
  } catch {
    return null
  }
}
