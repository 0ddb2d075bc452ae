// @ts-check
// sup save [--force]: write the apps that run now to dump.json, which `sup resurrect` and boot
// read. Only save writes it (the daemon's own state.json, kept current, is for crash recovery);
// save also drops saved apps that were not resurrected.
import { connectDaemon } from '../daemon.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    const result = await conn.request('dump.save', { force: Boolean(opts.force) })
    if (opts.json) io.out(JSON.stringify(result))
    else io.out(`saved ${result.apps.length} app(s), ${result.workers} worker(s) to ${result.file}${result.apps.length ? `: ${result.apps.join(', ')}` : ''}`)
    return 0
  } finally {
    await conn.close()
  }
}
