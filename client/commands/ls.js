// @ts-check
// sup ls [--json]: reads the daemon's cached figures; never triggers a sampling pass.
import { connectDaemon } from '../daemon.js'
import { renderLogWarnings, renderWorkers } from '../format.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    const rows = await conn.request('app.list')
    if (opts.json) {
      io.out(JSON.stringify(rows))
      return 0
    }
    io.out(renderWorkers(rows))
    for (const line of renderLogWarnings(rows)) io.out(line)
    return 0
  } finally {
    await conn.close()
  }
}
