// @ts-check
// sup stop | restart | delete | reset <targets...>
import { connectDaemon } from '../daemon.js'
import { renderWorkers } from '../format.js'
import { expandRegexTargets, expandTargets } from '../targets.js'
import { stringEnv } from '../shell-env.js'

const METHOD = { stop: 'app.stop', restart: 'app.restart', delete: 'app.delete', reset: 'app.reset' }
const PAST = { stop: 'stopped', restart: 'restarted', delete: 'deleted', reset: 'reset' }

/**
 * @param {'stop' | 'restart' | 'delete' | 'reset'} verb
 * @param {string[]} targets
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (verb, targets, { paths, io, opts }) {
  const expanded = await expandTargets(targets, { cwd: io.cwd, only: opts.only })
  const conn = await connectDaemon(paths)
  try {
    /** @type {{ targets: string[], cwd: string, shellEnv?: Record<string, string> }} */
    const params = { targets: await expandRegexTargets(expanded, () => conn.request('app.list')), cwd: io.cwd }
    if (verb === 'restart' && opts.updateEnv) params.shellEnv = stringEnv(io.env)
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = await conn.request(METHOD[verb], params)
    if (opts.json) {
      io.out(JSON.stringify(rows))
      return 0
    }
    const names = [...new Set(rows.map((r) => r.name))]
    io.out(`${PAST[verb]} ${names.join(', ') || 'nothing'} (${rows.length} worker${rows.length === 1 ? '' : 's'})`)
    if (verb !== 'delete') io.out(renderWorkers(rows))
    return 0
  } finally {
    await conn.close()
  }
}
