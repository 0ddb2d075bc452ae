// @ts-check
// The command line: every verb and flag declared here (cheap), each action's module loaded
// only when that command runs, so `sup ls` does not pay for `sup start`. The plain forms of
// `sup ls` skip commander altogether (listingForm in spawn-daemon.js).
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { resolvePaths } from '../ipc/paths.js'
import { SupError } from '../ipc/errors.js'
import { escapeControls } from '../ipc/terminal-text.js'
import { listingForm } from './spawn-daemon.js'
import { suggestVerb } from './suggest-verb.js'

/** @typedef {import('commander').Command} Command */

/**
 * @typedef {object} CliIo
 * @property {(text: string) => void} out a line for stdout
 * @property {(text: string) => void} err a line for stderr
 * @property {(text: string) => void} [warn] a warning for stderr, hushed by -s (none: err)
 * @property {NodeJS.ProcessEnv} env
 * @property {string} cwd
 * @property {Promise<unknown> | null} [earlyStart] a daemon start begun before the CLI was
 *   loaded (bin/sup.cjs, prestartDaemon), for the listing that waits on it
 * @property {() => Promise<import('../ipc/transport.js').Connection>} [via] the daemon is on
 *   another machine, reached this way (`sup --host`, client/fleet/)
 * @property {Array<{ label: string, via: () => Promise<import('../ipc/transport.js').Connection> }>} [fleet]
 *   the hosts `sup monit --host` follows, all at once
 *
 * @typedef {object} CommandContext
 * @property {import('./daemon.js').DaemonPaths} paths
 * @property {CliIo} io
 * @property {Record<string, any>} opts
 * @property {any[]} args the command's arguments, as commander parsed them (variadic ones as arrays)
 */

const requireHere = createRequire(import.meta.url)

/**
 * A module of the CLI: require()d where Node takes ES modules that way (>= 20.19, 22.12), which
 * loads a module and its imports synchronously and skips the ESM loader's per-file promises
 * (docs/benchmarks.md); import()ed elsewhere.
 * @param {string} specifier relative to this file
 * @returns {Promise<any>}
 */
async function loadModule (specifier) {
  if (process.features.require_module) {
    try {
      return requireHere(specifier)
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err
    }
  }
  return import(specifier)
}

/**
 * Run the CLI; resolves with the exit code.
 * @param {string[]} argv user arguments (without node and the script)
 * @param {CliIo} io
 * @returns {Promise<number>}
 */
export async function main (argv, io) {
  // `--host`: the same command, against other machines' daemons over ssh.
  if (!io.via && argv.some((w) => w === '--host' || w.startsWith('--host='))) {
    try {
      const { takeHostFlag } = await loadModule('./fleet/hosts.js')
      const { hosts, argv: rest } = takeHostFlag(argv)
      if (hosts) return await (await loadModule('./fleet/run.js')).runOnHosts(hosts, rest, io, main)
    } catch (err) {
      return reportError(err, io)
    }
  }
  // The listings skip commander: loading it was a fifth of a `sup ls` (docs/benchmarks.md).
  const listing = listingForm(argv)
  if (listing) {
    try {
      const { run } = await loadModule('./commands/ls.js')
      return (await run({ paths: resolvePaths(io.env), io, opts: listing, args: [] })) ?? 0
    } catch (err) {
      return reportError(err, io)
    }
  }
  // require(), not import: an ESM import of a CommonJS package first runs Node's CJS lexer.
  /** @type {typeof import('commander')} */
  const { Command, Option } = createRequire(import.meta.url)('commander')
  const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
  let exitCode = 0
  /** @param {string} file @param {(mod: any, ctx: CommandContext) => Promise<number | void>} call */
  const action = (file, call) => async (/** @type {any[]} */ ...args) => {
    const command = /** @type {Command} */ (args[args.length - 1])
    const { silent, color } = command.optsWithGlobals()
    if (color === false) (await import('./format.js')).turnColorOff()
    const opts = command.opts()
    const quiet = (silent || isSet(io.env.PM2_SILENT)) && !opts.json && !KEEP_OUTPUT_WHEN_SILENT.has(command.name())
    const ctx = { paths: { ...resolvePaths(io.env), via: io.via }, io: quiet ? silence(io) : io, opts, args: command.processedArgs }
    const mod = await loadModule(`./commands/${file}.js`)
    exitCode = (await call(mod, ctx)) ?? 0
  }

  const program = new Command('sup')
    .description('A process supervisor for Node.js services.')
    .version(version, '-v, --version', 'print the version')
    // PM2's global flags, valid before or after the verb.
    .option('-s, --silent', 'no chatter on stdout (errors still get their one line on stderr); what you asked to see still prints (--json, jlist, prettylist, logs, describe, pid, id, env); PM2_SILENT does the same')
    .option('--no-color', 'no colour, whatever the terminal')
    .showSuggestionAfterError()
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text.replace(/\n$/, '')),
      writeErr: (text) => io.err(text.replace(/\n$/, '')),
      outputError: (text, write) => write(`sup: ${usageLine(text)} (sup --help lists commands and flags)\n`)
    })

  addStartCommand(program, action, await import('./config/start-options.js'), argv)

  for (const [verb, description] of /** @type {const} */ ([
    ['stop', 'stop workers (the ladder: SIGINT or a shutdown message, then SIGKILL after kill_timeout)'],
    ['restart', 'stop then start workers again'],
    ['delete', 'stop workers and forget their apps'],
    ['reset', 'set restart counters back to 0']
  ])) {
    program.command(`${verb} <targets...>`)
      .description(`${description}; a target is an app name, a worker id, "all" or a config file`)
      .option('--only <names>', 'with a config file: only these apps (comma-separated)')
      .option('--json', 'print the affected workers as JSON')
      .action(action('act', (mod, ctx) => mod.run(verb, ctx.args[0], ctx)))
  }
  program.commands.find((c) => c.name() === 'delete')?.alias('del')
  program.commands.find((c) => c.name() === 'restart')
    ?.option('-a, --update-env', 'start with the current shell environment instead of the one captured at start')
    .option('-n, --name <name>', 'rename the app (one app)')
    .option('--env <name>', 'with a config file: apply env_<name>')
    .option('--node-args <args>', 'new arguments for node (or the interpreter); "null" clears them')
    .option('--interpreter-args <args>', 'alias of --node-args')
    .option('--watch', 'turn watching on if it is off, off if it is on (PM2\'s toggle)')

  program.command('reload <targets...>')
    .description('replace workers one at a time without dropping a request: each new worker must be ready before an old one is drained and retired (cluster mode; fork mode restarts)')
    .option('--surge <n>', 'new workers started at once above the app\'s size (default 1)')
    .option('--parallel <n>', 'replace n workers at a time (= --surge n)')
    .option('--max-unavailable <n>', 'how many fewer ready workers than the app has are tolerated (default 0)')
    .option('-a, --update-env', 'new workers get the current shell environment')
    .option('-n, --name <name>', 'rename the app (one app)')
    .option('--env <name>', 'with a config file: apply env_<name>')
    .option('--node-args <args>', 'new arguments for node (or the interpreter); "null" clears them')
    .option('--interpreter-args <args>', 'alias of --node-args')
    .option('--only <names>', 'with a config file: only these apps (comma-separated)')
    .option('--json', 'print the outcome and workers as JSON')
    .action(action('reload', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  // PM2's verbs for a config file: start what is not running, restart or reload the rest.
  program.command('startOrRestart <config>')
    .description('start the apps of a config file that are not running, restart the others with the file\'s settings (= sup start <config>)')
    .option('--env <name>', 'apply env_<name>')
    .option('--only <names>', 'only these apps (comma-separated)')
    .option('--json', 'print the workers as JSON')
    .action(action('start', async (mod, ctx) => mod.run([await needConfig(ctx.args[0], 'startOrRestart')], [], ctx)))
  for (const verb of ['startOrReload', 'startOrGracefulReload']) {
    program.command(`${verb} <config>`)
      .description('start the apps of a config file that are not running, reload the others with the file\'s settings (= sup reload <config>)')
      .option('--env <name>', 'apply env_<name>')
      .option('--only <names>', 'only these apps (comma-separated)')
      .option('--json', 'print the outcome and workers as JSON')
      .action(action('reload', async (mod, ctx) => mod.run([await needConfig(ctx.args[0], verb)], ctx)))
  }

  program.command('scale <name> <count>')
    .description('set the number of workers: 4 sets it, +2 adds, -1 removes (the highest instances, drained like a reload)')
    .option('--json', 'print the outcome as JSON')
    .action(action('scale', (mod, ctx) => mod.run(ctx.args[0], ctx.args[1], ctx)))

  program.command('ls').aliases(['list', 'status', 'l', 'ps'])
    .description('list every worker: id, name, mode, pid, status, restarts, uptime, cpu, mem')
    .option('--json', 'print a JSON array, one object per worker')
    .option('-w, --watch', 'refresh every second until Ctrl-C (in place in a terminal)')
    .option('--sort <field[:order]>', 'order by name, id, pid, cpu, memory, uptime, status or restarts; :asc (default) or :desc')
    .option('-m, --mini-list', 'a block of "key : value" lines per worker instead of the table (PM2\'s mini list)')
    .action(action('ls', (mod, ctx) => mod.run(ctx)))
  program.command('monit')
    .description('terminal dashboard: workers, CPU and memory over time, logs; restart, reload or stop from it')
    .action(action('monit', (mod, ctx) => mod.run(ctx)))
  program.command('metrics')
    .description('show, open or close the daemon\'s Prometheus endpoint (off by default, 127.0.0.1 unless --host)')
    .option('--port <port>', 'serve http://<host>:<port>/metrics (replaces an endpoint already open)')
    .option('--host <host>', 'address to listen on with --port (default 127.0.0.1; 0.0.0.0 for every interface)')
    .option('--off', 'close the endpoint')
    .option('--json', 'print JSON')
    .action(action('metrics', (mod, ctx) => mod.run(ctx)))
  program.command('jlist')
    .description('every worker as PM2 lists it (pm_id, name, pid, pm2_env.status, pm2_env.restart_time, monit.memory…), for tools written for PM2; sup ls --json is sup\'s own list')
    .action(action('ls', (mod, ctx) => mod.run({ ...ctx, opts: { pm2: 'jlist' } })))
  program.command('prettylist')
    .description('what jlist prints, as PM2 prints it for people (a JavaScript literal)')
    .action(action('ls', (mod, ctx) => mod.run({ ...ctx, opts: { pm2: 'prettylist' } })))

  program.command('pid [name]')
    .description('print the pid of each worker of the app (or of every app) that has a process, one per line')
    .action(action('pid', (mod, ctx) => mod.run(ctx.args[0], ctx)))
  program.command('id <name>')
    .description('print the worker ids of an app, as PM2 does: [ 0, 1 ]')
    .action(action('id', (mod, ctx) => mod.run(ctx.args[0], ctx)))
  program.command('env <target>')
    .description('print the environment a worker runs with (a worker id; an app name prints each of its workers)')
    .option('--json', 'print JSON')
    .option('--reveal', REVEAL)
    .action(action('env', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('describe <target>').aliases(['show', 'info'])
    .description('show an app\'s config, log files and workers')
    .option('--json', 'print JSON')
    .option('--reveal', REVEAL)
    .action(action('describe', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('logs [target]')
    .description('print the last log lines of an app, a worker or all apps, then follow new ones')
    .option('--lines <n>', 'how many past lines to print', '15')
    .option('--nostream', 'print past lines and exit instead of following')
    .addOption(new Option('--err', 'stderr only').conflicts('out'))
    .option('--out', 'stdout only')
    .option('--json', 'one JSON object per line')
    .option('--raw', 'the lines alone and as the app wrote them, no app prefix (stderr lines on stderr); without it, control characters are shown escaped (\\x1b)')
    .option('--timestamp [pattern]', 'put the time each line was written first (default pattern YYYY-MM-DD-HH:mm:ss)')
    .action(action('logs', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('events [target]')
    .description('the supervisor\'s decisions and their reasons: exits, restarts, crash loops, kills, limits, reloads')
    .option('--lines <n>', 'how many past events to print', '50')
    .option('-f, --follow', 'keep printing new events as they happen')
    .option('--json', 'one JSON object per line')
    .action(action('events', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('reloadLogs').alias('reload-logs')
    .description('close and reopen every log file at its path (after an outside tool such as logrotate moved them)')
    .action(action('reload-logs', (mod, ctx) => mod.run(ctx)))

  program.command('flush [target]')
    .description('empty the log files (and in-memory lines) of an app or all apps')
    .action(action('flush', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('signal <signal> <targets...>').alias('sendSignal')
    .description('send a signal (e.g. SIGUSR2) to the workers of an app or one worker')
    .action(action('signal', (mod, ctx) => mod.run(ctx.args[0], ctx.args[1], ctx)))

  program.command('ping')
    .description('start the daemon if needed and check that it answers')
    .option('--json', 'print JSON')
    .action(action('ping', (mod, ctx) => mod.run(ctx)))

  program.command('save').alias('dump')
    .description('write the apps that run now to $SUP_HOME/dump.json (dump.pm2 in PM2\'s home), what resurrect and boot start; only save writes it (after a crash the daemon restores from its own state.json)')
    .option('-f, --force', 'save even an empty list over a dump that holds apps')
    .option('--json', 'print JSON')
    .action(action('save', (mod, ctx) => mod.run(ctx)))

  program.command('resurrect')
    .description('start the apps of $SUP_HOME/dump.json that are not running yet')
    .option('--json', 'print JSON')
    .action(action('resurrect', (mod, ctx) => mod.run(ctx)))

  program.command('startup [platform]')
    .description('print (as a normal user) or write and enable (as root) a systemd unit that starts the daemon and resurrects the saved apps at boot; platform: systemd')
    .option('--user <name>', 'the account the daemon runs as (default: you, or the user who ran sudo)')
    .option('--home <dir>', 'its SUP_HOME (default: SUP_HOME, or ~/.sup of that user)')
    .option('--service-name <name>', 'the unit\'s name (default: sup-<user>)')
    .option('--unit-dir <dir>', 'write the unit there instead of /etc/systemd/system (nothing is enabled)')
    .option('--print', 'only print the unit')
    .option('--json', 'print JSON')
    .action(action('startup', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('unstartup [platform]')
    .description('disable and remove the unit written by sup startup; platform: systemd')
    .option('--user <name>', 'the account the unit was written for')
    .option('--service-name <name>', 'the unit\'s name (default: sup-<user>)')
    .option('--unit-dir <dir>', 'where the unit is (default /etc/systemd/system)')
    .action(action('unstartup', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  program.command('dial-stdio')
    .description('join stdin and stdout to the daemon\'s socket (what sup --host runs on the other machine, over ssh); never starts a daemon')
    .option('--home <dir>', 'the SUP_HOME whose daemon to reach (default: SUP_HOME, or ~/.sup)')
    .action(action('dial-stdio', (mod, ctx) => mod.run(ctx)))

  program.command('kill')
    .description('stop every app and the daemon')
    .action(action('kill', (mod, ctx) => mod.run(ctx)))
  program.command('update').alias('updatePM2')
    .description('save, stop every app and the daemon, start a daemon of this sup version, resurrect the apps')
    .action(action('update', (mod, ctx) => mod.run(ctx)))

  program.command('init [mode]').alias('ecosystem')
    .description('write a sample ./ecosystem.config.js, keeping one already there as ecosystem.config.js.bak (mode "simple": one app, name and script only)')
    .option('-f, --force', 'accepted, as in PM2: the sample is written over a file already there anyway')
    .action(action('init', (mod, ctx) => mod.run(ctx.args[0], ctx)))

  // PM2's `pm2 set <app>.<key> <value>`: environment variables of an app, kept in SUP_HOME.
  for (const [verb, usage, what] of [
    ['set', 'set [key] [value]', 'give app <app> the variable <key>=<value> (key: <app>.<key>), kept across restarts; restarts the app'],
    ['unset', 'unset <key>', 'remove <app>.<key>, or every setting of <app>'],
    ['multiset', 'multiset <pairs>', 'set several: "<app>.<key> <value> <app>.<key> <value>"'],
    ['get', 'get [key]', 'print one setting, an app\'s, or all'],
    ['conf', 'conf [key] [value]', 'set with a value, get without'],
    ['config', 'config <key> [value]', 'set with a value, get without']
  ]) {
    program.command(usage)
      .description(what)
      .option('--reveal', REVEAL)
      .action(action('settings', (mod, ctx) => mod.run(verb, ctx.args, ctx)))
  }

  // The verbs inherited commander's guesses for their flags; a mistyped verb gets ours (usageLine).
  program.showSuggestionAfterError(false)
  try {
    await program.parseAsync(argv, { from: 'user' })
  } catch (err) {
    return reportError(err, io)
  }
  return exitCode
}

/** What --reveal does, for each command that masks. */
const REVEAL = 'show the values of secret-looking keys (*KEY*, *TOKEN*, *SECRET*, *PASSWORD*, *CREDENTIAL*; SUP_SECRET_KEYS) instead of ****'

/**
 * @param {Command} program
 * @param {(file: string, call: (mod: any, ctx: CommandContext) => Promise<number | void>) => (...args: any[]) => Promise<void>} action
 * @param {typeof import('./config/start-options.js')} startOptions the option table, loaded only when commander is
 * @param {string[]} argv the user's words, to tell the scripts from their arguments
 */
function addStartCommand (program, action, { declareStartOptions }, argv) {
  const start = program.command('start [targets...]')
    .usage('[script|config|-]... [options] [-- script args]')
    .description('start scripts (node, or any interpreter) or the apps of ecosystem config files ("-": a config on stdin; none: ecosystem.config.js); script args go after --')
  declareStartOptions(start)
  for (const flag of PM2_NO_OPS) start.option(flag, 'PM2\'s, accepted: sup has nothing of the kind to turn off')
  start.option('-f, --force', 'start another copy of an app that already exists: the new workers join it (same script and options)')
    .option('--json', 'print the started workers as JSON')
    .action(action('start', (mod, ctx) => {
      const { targets, args } = splitStartOperands(ctx.args[0], argv)
      return mod.run(targets, args, ctx)
    }))
}

/**
 * Commander's usage error as one line: its "(Did you mean …?)" joins the line, and an unknown
 * verb gets suggestVerb's guess, which never names a verb that stops or deletes anything.
 * @param {string} text commander's message, "error: …", perhaps with a second line
 */
export function usageLine (text) {
  const line = text.replace(/^error: /, '').trim()
  const unknown = /^unknown command '(.*)'/.exec(line)
  if (unknown) {
    const guess = suggestVerb(unknown[1])
    return `${unknown[0]}${guess ? `; did you mean ${guess}?` : ''}`
  }
  return line.replace(/\s*\n\s*\(Did you mean (.+)\?\)$/, '; did you mean $1?').replace(/\s*\n\s*/g, ' ')
}

/**
 * startOrRestart and friends take a config file, as in PM2.
 * @param {string} target
 * @param {string} verb
 */
async function needConfig (target, verb) {
  const { isConfigFile } = await import('./config/load-file.js')
  if (!isConfigFile(target)) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `${verb} takes a config file (ecosystem.config.js, *.json, *.yml), not "${target}"` })
  }
  return target
}

/**
 * PM2's reading of `start a.js b.js -- x y`: every word before `--` is something to start,
 * the words after it are the scripts' arguments. Commander hands both over as one list.
 * @param {string[]} operands
 * @param {string[]} argv
 */
export function splitStartOperands (operands, argv) {
  const dash = argv.indexOf('--')
  const after = dash === -1 ? 0 : argv.length - dash - 1
  return { targets: operands.slice(0, operands.length - after), args: operands.slice(operands.length - after) }
}

/**
 * -s/PM2_SILENT hushes sup's chatter (what an action did, the ls table), never the data a
 * command exists to print: PM2 too still streams `pm2 logs` lines and prints
 * `jlist`/`prettylist` (process.stdout, not console). Any `--json` is data too (design §10).
 */
const KEEP_OUTPUT_WHEN_SILENT = new Set(['logs', 'jlist', 'prettylist', 'describe', 'pid', 'id', 'env'])

/**
 * PM2's start flags that turn off what sup never does (the @pm2/io agent,
 * Keymetrics automation and tracing, source-map-support injection): accepted so that PM2
 * command lines keep working, and they change nothing.
 */
export const PM2_NO_OPS = ['--no-pmx', '--no-automation', '--disable-trace', '--disable-source-map-support']

/**
 * A PM2_* switch is on when set to anything but "" or "false".
 * @param {string | undefined} value
 */
function isSet (value) {
  return value !== undefined && value !== '' && value !== 'false'
}

/**
 * -s/--silent: nothing on stdout, no warnings; an error keeps its one line on stderr (PM2
 * drops even that, leaving a script only the exit code to go on).
 * @param {CliIo} io
 * @returns {CliIo}
 */
function silence (io) {
  return { ...io, out: () => {}, warn: () => {} }
}

/**
 * Turn any failure into the one-line message and exit code the CLI contract promises.
 * @param {unknown} err
 * @param {CliIo} io
 */
function reportError (err, io) {
  const e = /** @type {any} */ (err)
  // commander reports its own usage errors (already printed) and --help/--version as exits.
  if (typeof e?.code === 'string' && e.code.startsWith('commander.')) return e.exitCode ?? 1
  // The message may come from a daemon or quote a config: shown, never obeyed by the terminal.
  if (err instanceof SupError) {
    io.err(`sup: ${escapeControls(err.message)}`)
    return 1
  }
  io.err(`sup: ${escapeControls(e?.message ?? String(err))}`)
  if (io.env.SUP_DEBUG || isSet(io.env.PM2_DEBUG)) io.err(String(e?.stack))
  return 1
}
