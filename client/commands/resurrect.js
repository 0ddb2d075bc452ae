// @ts-check
// sup resurrect: start what dump.json holds that is not running yet (never twice).
import { connectDaemon } from '../daemon.js'
import { renderWorkers } from '../format.js'
import { stringEnv } from '../shell-env.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    const result = await conn.request('dump.resurrect', { shellEnv: stringEnv(io.env) })
    if (opts.json) {
      io.out(JSON.stringify(result))
    } else {
      for (const warning of result.warnings) io.err(`sup: warning: ${warning}`)
      if (result.source === null) io.out(`nothing to resurrect: no saved apps in ${result.file}`)
      else if (result.apps.length === 0) io.out(`nothing to resurrect: every app in ${result.source} is already there (${result.skipped.join(', ') || 'none saved'})`)
      else {
        io.out(`resurrected ${result.apps.join(', ')} from ${result.source}${result.skipped.length ? ` (already there: ${result.skipped.join(', ')})` : ''}`)
        io.out(renderWorkers(result.workers))
      }
    }
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = result.workers
    const failed = rows.filter((r) => r.status === 'errored')
    if (failed.length > 0) {
      io.err(`sup: ${failed.length} worker(s) of ${[...new Set(failed.map((r) => r.name))].join(', ')} did not come online (sup logs ${failed[0].name} --nostream shows why)`)
      return 1
    }
    return 0
  } finally {
    await conn.close()
  }
}
