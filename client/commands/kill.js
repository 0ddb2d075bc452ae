// @ts-check
// sup kill: stop every app, then the daemon; returns once they are gone.
import { connectDaemon, readDaemonPid } from '../daemon.js'
import { SupError } from '../../ipc/errors.js'
import { isProcessRunning } from '../../ipc/process-status.js'

/** How long we wait for the daemon's process to end after it closed the socket. */
const EXIT_WAIT = 5000

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io }) {
  let conn
  try {
    conn = await connectDaemon(paths)
  } catch (err) {
    if (err instanceof SupError && err.code === 'SUP_ERR_DAEMON_UNREACHABLE') {
      io.out('no daemon running')
      return 0
    }
    throw err
  }
  const closed = new Promise((resolve) => conn.once('close', resolve))
  const { pid } = await conn.request('daemon.kill')
  io.out(`stopping every app and the daemon (pid ${pid})...`)
  // The daemon closes our socket once every app is down.
  await closed
  await waitForExit(pid ?? readDaemonPid(paths))
  io.out('daemon stopped')
  return 0
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
