// @ts-check
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { test } from 'node:test'
import { rawFromFlags } from '../../../../client/config/build.js'
import { normalizeApp } from '../../../../client/config/normalize.js'
import { START_OPTIONS, attributeName, declareStartOptions, longFlag } from '../../../../client/config/start-options.js'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { APP_FIELDS } from '../../../../ipc/app-fields.js'

/** @type {typeof import('commander')} */
const { Command } = createRequire(import.meta.url)('commander')

/** @param {string[]} argv the flags of `sup start app.js ...` */
function parse (argv) {
  const command = new Command().exitOverride().argument('<script>').argument('[args...]')
  declareStartOptions(command)
  command.parse(['app.js', ...argv], { from: 'user' })
  return rawFromFlags('app.js', command.args.slice(1), command.opts())
}

/** @type {Array<[string[], Record<string, unknown>]>} */
const rows = [
  [[], {}],
  [['-i', 'max', '-n', 'web', '-x'], { instances: 'max', name: 'web', force_fork: true }],
  [['--node-args', '--inspect'], { interpreter_args: '--inspect' }],
  [['--interpreter-args', '--inspect'], { interpreter_args: '--inspect' }],
  [['--node-args', 'a', '--interpreter-args', 'b'], { interpreter_args: 'a' }],
  [['--cron', '0 3 * * *'], { cron_restart: '0 3 * * *' }],
  [['-c', '0 2 * * *'], { cron_restart: '0 2 * * *' }],
  [['--cron-restart', '0 4 * * *', '--cron', '0 3 * * *'], { cron_restart: '0 4 * * *' }],
  [['--no-autorestart'], { autorestart: false }],
  [['--no-autostart'], { autostart: false }],
  [['--namespace', 'jobs'], { namespace: 'jobs' }],
  [['-p', 'app.pid'], { pid_file: 'app.pid' }],
  [['--pid', 'app.pid'], { pid_file: 'app.pid' }],
  [['--stop-exit-codes', '0, 2'], { stop_exit_codes: [0, 2] }],
  [['--log-compress'], { log_compress: true }],
  [['--no-log-compress'], { log_compress: false }],
  [['--watch'], { watch: true }],
  [['--watch', 'src,lib', '--ignore-watch', '*.log'], { watch: 'src,lib', ignore_watch: '*.log' }],
  [['--disable-logs'], { disable_logs: true }],
  [['-l'], { log_file: true }],
  [['-o', 'out.log', '-e', 'err.log', '-l', 'all.log'], { out_file: 'out.log', error_file: 'err.log', log_file: 'all.log' }],
  [['--env', 'production', '--only', 'web', '--balance', 'os'], {}],
  [['--kill-timeout', '800', '--wait-ready', '--shutdown-with-message'], { kill_timeout: '800', wait_ready: true, shutdown_with_message: true }],
  [['--listen', '3000'], { listen: ['3000'] }],
  [['--listen', '127.0.0.1:8080, unix:/run/app.sock', '--listen-timeout', '500'], { listen: ['127.0.0.1:8080', 'unix:/run/app.sock'], listen_timeout: '500' }]
]
for (const [argv, entry] of rows) {
  test(`sup start app.js ${argv.join(' ')} -> ${JSON.stringify(entry)}`, () => {
    assert.deepEqual(parse(argv), { script: 'app.js', args: [], ...entry })
  })
}

test('script arguments pass through', () => {
  assert.deepEqual(parse(['-n', 'web', 'a', 'b']).args, ['a', 'b'])
})

test('each long flag and alias is declared once', () => {
  const longs = START_OPTIONS.flatMap((o) => [longFlag(o.flags), ...o.aliases ?? []])
  assert.deepEqual(longs.filter((flag, i) => longs.indexOf(flag) !== i), [])
})

test('aliases are declared as flags of their own that say what they alias', () => {
  const command = new Command()
  declareStartOptions(command)
  const option = command.options.find((o) => o.long === '--interpreter-args')
  assert.equal(option?.flags, '--interpreter-args <args>')
  assert.equal(option?.description, 'alias of --node-args')
})

test('every config key is one the normaliser keeps (or force_fork, which picks exec_mode, or disable_logs, which sets the log files)', () => {
  const kept = new Set([...Object.keys(normalizeApp({ script: process.execPath }, { cwd: tmpdir(), cpus: 2 })), 'force_fork', 'disable_logs'])
  for (const option of START_OPTIONS) {
    if (option.key !== null) assert.ok(kept.has(option.key), `${option.flags} sets ${option.key}, which normalizeApp drops`)
  }
})

test('attributeName follows commander', () => {
  assert.equal(attributeName('--exp-backoff-restart-delay'), 'expBackoffRestartDelay')
  assert.equal(attributeName('--no-log-compress'), 'logCompress')
  assert.equal(longFlag('-l, --log [file]'), '--log')
})

test('the help of a flag with a value says the default the table has', () => {
  const command = new Command()
  declareStartOptions(command)
  const help = (/** @type {string} */ long) => command.options.find((o) => o.long === long)?.description
  assert.match(String(help('--kill-timeout')), new RegExp(`\\(default ${APP_DEFAULTS.kill_timeout}\\)$`))
  assert.match(String(help('--max-restarts')), new RegExp(`\\(default ${APP_DEFAULTS.max_restarts}\\)$`))
  assert.match(String(help('--instance-var')), new RegExp(`\\(default "${APP_DEFAULTS.instance_var}"\\)$`))
  assert.doesNotMatch(String(help('--wait-ready')), /default/)
})

test('every flag with a key sets a key of the field table', () => {
  for (const option of START_OPTIONS) {
    if (option.key !== null) assert.ok(APP_FIELDS.some((f) => f.key === option.key), option.flags)
  }
})
