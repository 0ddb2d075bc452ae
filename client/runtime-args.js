// @ts-check
// sup-runtime's command line: the options of `sup start` (the same table,
// client/config/start-options.js) plus the runtime's own, normalised into app configs here in
// the CLI layer.
import { createRequire } from 'node:module'
import { daemonBalanceOfFlag } from '../ipc/balance.js'
import { SupError } from '../ipc/errors.js'
import { buildConfigs, warnOnce } from './config/build.js'
import { declareStartOptions } from './config/start-options.js'
import { version } from './version.js'

/**
 * @typedef {object} RuntimeArgs
 * @property {import('../ipc/app-config.js').AppConfig[]} configs
 * @property {boolean} json log lines as JSON objects
 * @property {Record<string, string>} daemonEnv what the in-process daemon reads beyond the environment (SUP_BALANCE)
 */

/**
 * Parse argv; resolves with the apps to run, or with an exit code when there is nothing to
 * run (--help, --version, a usage or config error, already reported on `io.err`).
 * @param {string[]} argv
 * @param {import('./cli.js').CliIo} io
 * @returns {Promise<RuntimeArgs | number>}
 */
export async function parseRuntimeArgs (argv, io) {
  /** @type {typeof import('commander')} */
  const { Command } = createRequire(import.meta.url)('commander')
  /** @type {{ target: string, args: string[], opts: Record<string, any> } | null} */
  let parsed = null
  const program = new Command('sup-runtime')
    .usage('<script|config> [options] [-- script args]')
    .description('run apps in the foreground, for containers: logs on stdout/stderr, SIGTERM stops everything, exits non-zero when an app is errored')
    .argument('<script|config>', 'a script, or an ecosystem config file')
    .argument('[args...]', 'script arguments')
    .version(version, '-v, --version', 'print the version')
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      outputError: (text, write) => write(`sup-runtime: ${text.replace(/^error: /, '').trimEnd()} (sup-runtime --help lists the options)\n`)
    })
    .action((target, args, opts) => { parsed = { target, args, opts } })
  declareStartOptions(program)
  program.option('--json', 'print log lines as JSON objects ({ time, app, instance, stream, message })')
  program.option('--log-files', 'also write app log files under $SUP_HOME/logs (off: the container keeps stdout/stderr)')

  try {
    await program.parseAsync(argv, { from: 'user' })
    if (!parsed) return 0
    const { target, args, opts } = /** @type {{ target: string, args: string[], opts: Record<string, any> }} */ (parsed)
    const configs = await buildConfigs(target, args, opts, io.cwd, { warn: warnOnce(io, 'sup-runtime') })
    const balance = opts.balance !== undefined ? daemonBalanceOfFlag(opts.balance, '--balance') : null
    return {
      configs: opts.logFiles ? configs : configs.map(withoutLogFiles),
      json: Boolean(opts.json),
      daemonEnv: balance ? { SUP_BALANCE: balance } : {}
    }
  } catch (err) {
    const e = /** @type {any} */ (err)
    if (typeof e?.code === 'string' && e.code.startsWith('commander.')) return e.exitCode ?? 1
    io.err(`sup-runtime: ${err instanceof SupError ? err.message : e?.message ?? String(err)}`)
    return 1
  }
}

/**
 * In a container the logs belong on stdout/stderr; files would only fill the writable layer.
 * Files an app names itself are kept.
 * @param {import('../ipc/app-config.js').AppConfig} config
 */
function withoutLogFiles (config) {
  return { ...config, out_file: config.out_file ?? '/dev/null', error_file: config.error_file ?? '/dev/null' }
}
