// @ts-check
// sup signal <SIG> <targets...>
import { connectDaemon } from '../daemon.js'
import { expandRegexTargets } from '../targets.js'

/**
 * @param {string} signal
 * @param {string[]} targets
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (signal, targets, { paths, io }) {
  const conn = await connectDaemon(paths)
  try {
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = await conn.request('app.signal', { signal, targets: await expandRegexTargets(targets, () => conn.request('app.list')), cwd: io.cwd })
    if (rows.length === 0) {
      io.err('sup: no running worker to signal')
      return 1
    }
    io.out(`sent ${signal} to ${rows.map((r) => `${r.name}[${r.instance}] (pid ${r.pid})`).join(', ')}`)
    return 0
  } finally {
    await conn.close()
  }
}
