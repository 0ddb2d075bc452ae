// @ts-check
// sup describe <name|id> [--json]
import { connectDaemon } from '../daemon.js'
import { renderTable, renderWorkers } from '../format.js'

/**
 * @param {string} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    const info = await conn.request('app.describe', { target })
    if (opts.json) {
      io.out(JSON.stringify(info, null, 2))
      return 0
    }
    const { config } = info
    const rows = Object.entries(config)
      .filter(([key]) => key !== 'env')
      .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])
    rows.push(['env', Object.keys(config.env).join(', ') || '(none of its own)'])
    io.out(`app ${info.name}`)
    io.out(renderTable(['key', 'value'], rows))
    io.out('')
    io.out('log files')
    for (const file of info.logs) io.out(`  ${file}`)
    io.out('')
    io.out(renderWorkers(info.workers))
    return 0
  } finally {
    await conn.close()
  }
}
