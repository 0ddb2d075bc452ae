// @ts-check
// sup kill: stop every app, then the daemon; returns once they are gone.
import { connectDaemon, killDaemon } from '../daemon.js'
import { SupError } from '../../ipc/errors.js'

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
  await killDaemon(conn, paths, (pid) => io.out(`stopping every app and the daemon (pid ${pid})...`))
  io.out('daemon stopped')
  return 0
}
