// @ts-check
// Connect to the daemon of this SUP_HOME, starting it first when asked to and none runs.
import { SOCKET_NO_ACCESS, SOCKET_NOT_LISTENING, SupError } from '../ipc/errors.js'
import { isProcessRunning } from '../ipc/process-status.js'
import { PROTOCOL_VERSION } from '../ipc/version.js'
import { ensureHome, readOwnFileSync } from '../ipc/safe-fs.js'
import { connect } from '../ipc/transport.js'
import { START_TIMEOUT, startDaemon } from './spawn-daemon.js'

/**
 * The paths of a home, and, for a daemon on another machine, how to reach it instead
 * (`sup --host`: client/fleet/).
 * @typedef {import('../ipc/paths.js').SupPaths & { via?: () => Promise<import('../ipc/transport.js').Connection> }} DaemonPaths
 */

/**
 * @param {DaemonPaths} paths
 * @param {{ start?: boolean, daemonEnv?: Record<string, string>, pipeline?: boolean, early?: Promise<unknown> | null }} [options] start
 *   a daemon when none runs, with `daemonEnv` added to its environment (e.g. SUP_BALANCE);
 *   `early`: a start begun before the CLI was loaded (prestartDaemon), waited for first;
 *   `pipeline`: return without waiting for hello's answer, the next requests going right
 *   behind it (their answers still wait for it, and its error wins)
 * @returns {Promise<import('../ipc/transport.js').Connection>}
 */
export async function connectDaemon (paths, { start = false, daemonEnv = {}, pipeline = false, early = null } = {}) {
  if (paths.via) return paths.via()
  // A home someone else made or can write is refused before anything in it is used.
  ensureHome(paths)
  let conn
  try {
    if (start && early) {
      const failure = await early
      if (failure) throw failure
      conn = await connectWithRetry(paths.socket)
    } else {
      conn = await connect(paths.socket)
    }
  } catch (err) {
    if (err instanceof SupError) throw err
    if (SOCKET_NO_ACCESS.has(/** @type {NodeJS.ErrnoException} */ (err).code ?? '')) throw new SupError('SUP_ERR_DAEMON_ACCESS_DENIED', { home: paths.home })
    if (!SOCKET_NOT_LISTENING.has(/** @type {NodeJS.ErrnoException} */ (err).code ?? '')) throw err
    if (!start) throw new SupError('SUP_ERR_DAEMON_UNREACHABLE', { home: paths.home })
    await startDaemon(paths, daemonEnv)
    conn = await connectWithRetry(paths.socket)
  }
  const hello = conn.request('hello', { protocol: PROTOCOL_VERSION, client: 'sup-cli' })
  if (pipeline) {
    conn.afterHello(hello)
    return conn
  }
  await hello.catch(async (err) => {
    await conn.close()
    throw err
  })
  return conn
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
      if (Date.now() > deadline || !SOCKET_NOT_LISTENING.has(/** @type {NodeJS.ErrnoException} */ (err).code ?? '')) throw err
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
    const pid = Number.parseInt(readOwnFileSync(paths.pidFile, 64), 10)
    return Number.isInteger(pid) ? pid : null
  } catch {
    return null
  }
}

/** How long we wait for the daemon's process to end after it closed the socket. */
const EXIT_WAIT = 5000

/**
 * Ask the daemon to stop every app and itself; resolves once its process is gone.
 * @param {import('../ipc/transport.js').Connection} conn
 * @param {import('../ipc/paths.js').SupPaths} paths
 * @param {(pid: number | null) => void} [onStopping] told the daemon's pid once it has agreed
 */
export async function killDaemon (conn, paths, onStopping = () => {}) {
  const closed = new Promise((resolve) => conn.once('close', resolve))
  const { pid } = await conn.request('daemon.kill')
  onStopping(pid)
  // The daemon closes our socket once every app is down.
  await closed
  await waitForExit(pid ?? readDaemonPid(paths))
}

/**
 * We did not start the daemon, so there is no exit event to wait on: check its pid, bounded.
 * @param {number | null} pid
 */
async function waitForExit (pid) {
  if (!pid) return
  const deadline = Date.now() + EXIT_WAIT
  while (isProcessRunning(pid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}
