// @ts-check
// sup scale <name> <n|+n|-n>: up adds ready workers; down retires the highest instances
// with the same drain as a reload.
import { connectDaemon } from '../daemon.js'
import { renderWorkers } from '../format.js'
import { followProgress, reportOutcomes } from '../progress.js'

/**
 * @param {string} target
 * @param {string} count
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, count, { paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    if (!opts.json) await followProgress(conn, io, /^\d+$/.test(target) ? [] : [target])
    const outcome = await conn.request('app.scale', { target, count })
    if (opts.json) {
      io.out(JSON.stringify(outcome))
    } else if (outcome.outcome !== 'unchanged') {
      const rows = /** @type {import('../../ipc/methods.js').WorkerRow[]} */ (await conn.request('app.list')).filter((r) => r.name === outcome.name)
      io.out(renderWorkers(rows))
    }
    return reportOutcomes([outcome], io, opts.json)
  } finally {
    await conn.close()
  }
}
