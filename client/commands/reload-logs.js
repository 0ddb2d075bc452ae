// @ts-check
// sup reloadLogs: reopen every log file at its path, for an outside rotator (logrotate's
// postrotate) that moved the files: sup would otherwise keep writing to the moved ones.
import { connectDaemon } from '../daemon.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io }) {
  const conn = await connectDaemon(paths)
  try {
    /** @type {{ reopened: string[] }} */
    const { reopened } = await conn.request('logs.reopen')
    io.out(`reopened ${reopened.length} log file(s)`)
    return 0
  } finally {
    await conn.close()
  }
}
