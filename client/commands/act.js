// @ts-check
// sup stop | restart | delete | reset <targets...>
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { buildConfigs, buildUpdate, warnOnce } from '../config/build.js'
import { isConfigFile } from '../config/load-file.js'
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
  // `restart <config>` is PM2's: the file's apps that run take its settings, the others start.
  const files = verb === 'restart' ? targets.filter((t) => isConfigFile(t) && existsSync(resolve(io.cwd, t))) : []
  const others = targets.filter((t) => !files.includes(t))
  if (verb === 'restart' && opts.env !== undefined && others.length > 0) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `--env ${opts.env} takes env_${opts.env} from a config file: name the file (sup restart ecosystem.config.js --env ${opts.env})` })
  }
  const warn = warnOnce(io)
  const configs = (await Promise.all(files.map((file) => buildConfigs(file, [], { only: opts.only, env: opts.env }, io.cwd, { warn })))).flat()
  const update = verb === 'restart' ? buildUpdate(opts, io.cwd) : undefined
  const expanded = await expandTargets(others, { cwd: io.cwd, only: opts.only })
  const conn = await connectDaemon(paths, { start: configs.length > 0 })
  try {
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = []
    if (configs.length > 0) rows.push(...await conn.request('app.start', { apps: configs, shellEnv: stringEnv(io.env), existing: 'restart' }))
    if (expanded.length > 0) {
      /** @type {{ targets: string[], cwd: string, shellEnv?: Record<string, string>, update?: Record<string, unknown>, toggleWatch?: boolean }} */
      const params = { targets: await expandRegexTargets(expanded, () => conn.request('app.list')), cwd: io.cwd }
      if (verb === 'restart' && opts.updateEnv) params.shellEnv = stringEnv(io.env)
      if (update) params.update = update
      // PM2's `restart --watch` turns watching on when off, off when on.
      if (verb === 'restart' && opts.watch) params.toggleWatch = true
      rows.push(...await conn.request(METHOD[verb], params))
    }
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
