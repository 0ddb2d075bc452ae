// @ts-check
// sup resurrect: start what dump.json holds that is not running yet (never twice).
import { connectDaemon } from '../daemon.js'
import { reportResurrect } from '../format.js'
import { stringEnv } from '../shell-env.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    const result = await conn.request('dump.resurrect', { shellEnv: stringEnv(io.env) })
    if (!opts.json && result.apps.length > 0 && result.skipped.length > 0) {
      // The saved apps that were already there are named beside the new ones: show them too.
      const skipped = new Set(result.skipped)
      result.present = (await conn.request('app.list')).filter((/** @type {{ name: string }} */ row) => skipped.has(row.name))
    }
    return reportResurrect(result, io, Boolean(opts.json))
  } finally {
    await conn.close()
  }
}
