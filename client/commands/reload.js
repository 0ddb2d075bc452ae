// @ts-check
// sup reload <targets...>: replace workers one by one without dropping a request (cluster
// mode; fork-mode apps are restarted), printing each step as the daemon reports it.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { buildConfigs, buildUpdate, warnOnce } from '../config/build.js'
import { isConfigFile } from '../config/load-file.js'
import { connectDaemon } from '../daemon.js'
import { renderWorkers } from '../format.js'
import { followProgress, reportOutcomes } from '../progress.js'
import { stringEnv } from '../shell-env.js'
import { expandRegexTargets } from '../targets.js'

/**
 * @param {string[]} targets names, ids, "all" or config files
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (targets, { paths, io, opts }) {
  const limits = readLimits(opts)
  const params = await buildParams(targets, opts, io)
  const conn = await connectDaemon(paths)
  try {
    params.targets = await expandRegexTargets(params.targets, () => conn.request('app.list'))
    if (!opts.json) await followProgress(conn, io, params.targets.every((t) => t !== 'all' && !/^\d+$/.test(t)) ? params.targets : [])
    /** @type {{ apps: import('../../ipc/events.js').RolloutOutcome[], workers: import('../../ipc/methods.js').WorkerRow[] }} */
    const result = await conn.request('app.reload', { ...params, ...limits })
    if (opts.json) io.out(JSON.stringify(result))
    else {
      // PM2 says so too: "Applications b not running, starting..."
      for (const o of result.apps) if (o.outcome === 'started') io.out(`started ${o.name} (it was not running)`)
      if (result.workers.length > 0) io.out(renderWorkers(result.workers))
    }
    return reportOutcomes(result.apps, io, opts.json)
  } finally {
    await conn.close()
  }
}

/**
 * --surge, --max-unavailable and PM2's --parallel (= replace that many at a time).
 * @param {Record<string, any>} opts
 */
export function readLimits (opts) {
  /** @type {{ surge?: number, maxUnavailable?: number }} */
  const limits = {}
  const surge = opts.surge ?? opts.parallel
  if (surge !== undefined) limits.surge = wholeNumber(surge, opts.surge !== undefined ? '--surge' : '--parallel')
  if (opts.maxUnavailable !== undefined) limits.maxUnavailable = wholeNumber(opts.maxUnavailable, '--max-unavailable')
  if (limits.surge === 0 && (limits.maxUnavailable ?? 0) === 0) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: '--surge 0 needs --max-unavailable of at least 1, or nothing could be replaced' })
  }
  return limits
}

/**
 * @param {unknown} value
 * @param {string} flag
 */
function wholeNumber (value, flag) {
  const n = Number(value)
  if (!/^\d+$/.test(String(value)) || n > 1024) throw new SupError('SUP_ERR_CLI_USAGE', { reason: `${flag} takes a whole number from 0 to 1024, got "${value}"` })
  return n
}

/**
 * Targets as the daemon takes them; a config file also sends its apps' new settings.
 * @param {string[]} targets
 * @param {Record<string, any>} opts
 * @param {import('../cli.js').CliIo} io
 */
async function buildParams (targets, opts, io) {
  /** @type {string[]} */
  const names = []
  /** @type {import('../../ipc/app-config.js').AppConfig[]} */
  const apps = []
  const warn = warnOnce(io)
  for (const target of targets) {
    if (isConfigFile(target) && existsSync(resolve(io.cwd, target))) {
      const configs = await buildConfigs(target, [], { only: opts.only, env: opts.env }, io.cwd, { warn })
      apps.push(...configs)
      names.push(...configs.map((c) => c.name))
    } else {
      names.push(target)
    }
  }
  if (opts.env !== undefined && names.length > apps.length) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `--env ${opts.env} takes env_${opts.env} from a config file: name the file (sup reload ecosystem.config.js --env ${opts.env})` })
  }
  /** @type {{ targets: string[], cwd: string, apps?: typeof apps, shellEnv?: Record<string, string>, update?: Record<string, unknown> }} */
  const params = { targets: names, cwd: io.cwd }
  if (apps.length > 0) params.apps = apps
  // A config file brings the caller's environment along, as in PM2 (its JSON actions update env).
  if (opts.updateEnv || apps.length > 0) params.shellEnv = stringEnv(io.env)
  const update = buildUpdate(opts, io.cwd)
  if (update) params.update = update
  return params
}
