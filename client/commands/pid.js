// @ts-check
// sup pid [name]: the pids of an app's workers (or every app's), one per line, for scripts
// such as `kill -USR2 $(sup pid api)`.
import { connectDaemon } from '../daemon.js'

/**
 * @param {string | undefined} name
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (name, { paths, io }) {
  const conn = await connectDaemon(paths)
  try {
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = await conn.request('app.list')
    // As PM2: an unknown name prints nothing and is no error. Unlike PM2, a worker with no
    // process prints nothing rather than 0, which `kill $(pm2 pid app)` would turn into
    // "every process of my group" (docs/pm2.md).
    for (const row of rows) {
      if ((name === undefined || row.name === name) && row.pid !== null) io.out(String(row.pid))
    }
    return 0
  } finally {
    await conn.close()
  }
}
