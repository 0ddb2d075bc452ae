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
    return reportResurrect(result, io, Boolean(opts.json))
  } finally {
    await conn.close()
  }
}
