// @ts-check
// The PM2 compatibility measurement (issue 9): PM2's own end-to-end shell scripts, run with
// `pm2` pointing at a shim that calls sup. It is a measurement, not a test of `npm test`.
//
//   node test/pm2-e2e/run.js [--pm2 <PM2 checkout or git dir>] [--ref v7.0.3] [script ...]
//
// PM2 is AGPL-3.0, so its scripts are not copied into this MIT repository: they are read
// from a PM2 checkout (--pm2 or PM2_SRC), or cloned from GitHub at --ref into
// test/pm2-e2e/.cache/. Each script runs in a fresh copy of PM2's test/ tree, with its own
// SUP_HOME, under a time limit; the daemon and every process left are stopped after it.
// Prints, per script, the checks passed and failed (PM2's ✔ and ✘ lines) and the first failure.
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const HERE = path.dirname(fileURLToPath(import.meta.url))
const ROOT = path.resolve(HERE, '../..')
const SCRIPT_TIMEOUT_MS = 480_000

/**
 * The scripts PM2's test/e2e.sh runs from cli/, process-file/, internals/, logs/, misc/ and
 * esmodule.sh, less those that test no supervision (see README.md here for why each is out).
 */
export const SCRIPTS = [
  'cli/reload.sh', 'cli/start-app.sh', 'cli/operate-regex.sh', 'cli/app-configuration.sh',
  'cli/binary.sh', 'cli/startOrX.sh', 'cli/reset.sh', 'cli/env-refresh.sh', 'cli/extra-lang.sh',
  'cli/python-support.sh', 'cli/multiparam.sh', 'cli/smart-start.sh', 'cli/args.sh',
  'esmodule.sh',
  'cli/cli-actions-1.sh', 'cli/cli-actions-2.sh', 'cli/dump.sh', 'cli/resurrect.sh', 'cli/watch.sh',
  'cli/right-exit-code.sh', 'cli/fork.sh', 'cli/piped-config.sh',
  'process-file/json-file.sh', 'process-file/yaml-configuration.sh', 'process-file/json-reload.sh',
  'process-file/app-config-update.sh', 'process-file/js-configuration.sh',
  'process-file/homogen-json-action.sh',
  'internals/wait-ready-event.sh', 'internals/daemon-paths-override.sh', 'internals/wrapped-fork.sh',
  'internals/infinite-loop.sh', 'internals/options-via-env.sh', 'internals/increment-var.sh',
  'internals/start-consistency.sh',
  'logs/log-json.sh', 'logs/log-custom.sh', 'logs/log-reload.sh', 'logs/log-entire.sh', 'logs/log-null.sh',
  'logs/log-create-not-exist-dir.sh', 'logs/log-namespace.sh',
  'misc/misc.sh', 'misc/instance-number.sh', 'misc/port-release.sh'
]

/** PM2's dependencies that its bundled modules (modules/pm2-io-bpm) need to load. */
const PM2_MODULE_DEPENDENCIES = ['debug']

const argv = process.argv.slice(2)
const pm2Src = takeOption('--pm2') ?? process.env.PM2_SRC ?? null
const ref = takeOption('--ref') ?? 'v7.0.3'
const only = argv.filter((arg) => !arg.startsWith('--'))
const scripts = only.length > 0 ? SCRIPTS.filter((s) => only.some((o) => s.includes(o))) : SCRIPTS

const work = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-pm2-e2e-'))
const pristine = path.join(work, 'pm2-test')
extractPm2Tests(pm2Src, ref, pristine)
providePm2Dependencies(pristine, work)
const shim = writeShim(path.join(work, 'bin', 'pm2'))

console.log(`PM2 ${ref} e2e scripts against sup (${path.relative(process.cwd(), ROOT) || '.'}); logs in ${work}`)
const results = []
for (const script of scripts) {
  const result = await runScript(script)
  results.push(result)
  const verdict = result.timedOut ? 'TIMEOUT' : result.code === 0 ? 'pass' : 'FAIL'
  console.log(`${verdict.padEnd(7)} ${script.padEnd(40)} ${String(result.passed).padStart(3)} passed ${String(result.failed).padStart(2)} failed  ${(result.seconds).toFixed(0).padStart(3)}s  ${result.firstFailure}`)
}
const passing = results.filter((r) => r.code === 0 && !r.timedOut).length
console.log(`\n${passing} of ${results.length} scripts pass; checks: ${sum('passed')} passed, ${sum('failed')} failed`)

/** @param {'passed' | 'failed'} key */
function sum (key) {
  return results.reduce((total, r) => total + r[key], 0)
}

/**
 * @param {string} name
 * @returns {string | undefined}
 */
function takeOption (name) {
  const at = argv.indexOf(name)
  if (at === -1) return undefined
  const [, value] = argv.splice(at, 2)
  return value
}

/**
 * Put PM2's test/e2e and test/fixtures at `dest`/test, and its modules/ at `dest`/modules:
 * fixtures such as homogen-json-action/http.js load PM2's bundled @pm2/io
 * (`require('../../../modules/pm2-io-bpm').init()`), as an app of a PM2 user does.
 * @param {string | null} src a work tree, a git directory, or null to clone
 * @param {string} tag
 * @param {string} dest
 */
function extractPm2Tests (src, tag, dest) {
  fs.mkdirSync(dest, { recursive: true })
  let gitDir = src
  if (src === null) {
    gitDir = path.join(HERE, '.cache', `pm2-${tag}`)
    if (!fs.existsSync(gitDir)) {
      run('git', ['clone', '--quiet', '--bare', '--depth', '1', '--branch', tag, 'https://github.com/Unitech/pm2.git', gitDir])
    }
  } else if (fs.existsSync(path.join(src, 'test', 'e2e'))) {
    fs.cpSync(path.join(src, 'test'), path.join(dest, 'test'), { recursive: true })
    fs.cpSync(path.join(src, 'modules'), path.join(dest, 'modules'), { recursive: true })
    fs.copyFileSync(path.join(src, 'package.json'), path.join(dest, 'package.json'))
    return
  }
  const archive = spawnSync('git', ['--git-dir', /** @type {string} */ (gitDir), 'archive', tag, 'test/e2e', 'test/fixtures', 'modules', 'package.json'], { maxBuffer: 1 << 28 })
  if (archive.status !== 0) throw new Error(`git archive ${tag} failed: ${archive.stderr}`)
  const untar = spawnSync('tar', ['-x', '-C', dest], { input: archive.stdout })
  if (untar.status !== 0) throw new Error(`tar failed: ${untar.stderr}`)
}

/**
 * What PM2's modules/ load from PM2's own dependencies (pm2-io-bpm: `debug`), installed once
 * with npm at the versions PM2 pins, into .cache/, and reachable from every script's tree
 * through `work`/node_modules. PM2's own e2e runs after `npm install` has them there.
 * @param {string} pristine the extracted PM2 tree (its package.json gives the versions)
 * @param {string} work
 */
function providePm2Dependencies (pristine, work) {
  const pinned = JSON.parse(fs.readFileSync(path.join(pristine, 'package.json'), 'utf8')).dependencies ?? {}
  const wanted = PM2_MODULE_DEPENDENCIES.map((name) => `${name}@${pinned[name] ?? 'latest'}`)
  const cache = path.join(HERE, '.cache', `pm2-deps-${wanted.join('-').replace(/[^\w.@-]/g, '_')}`)
  if (!fs.existsSync(path.join(cache, 'node_modules'))) {
    fs.mkdirSync(cache, { recursive: true })
    run('npm', ['install', '--prefix', cache, '--no-save', '--no-audit', '--no-fund', '--silent', ...wanted])
  }
  fs.symlinkSync(path.join(cache, 'node_modules'), path.join(work, 'node_modules'))
}

/**
 * @param {string} command
 * @param {string[]} args
 */
function run (command, args) {
  const done = spawnSync(command, args, { stdio: 'inherit' })
  if (done.status !== 0) throw new Error(`${command} ${args.join(' ')} failed`)
}

/**
 * The `pm2` the scripts call: sup (whose jlist and prettylist print PM2's shape).
 * @param {string} file
 */
function writeShim (file) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const sup = path.join(ROOT, 'bin', 'sup.js')
  fs.writeFileSync(file, [
    '#!/usr/bin/env bash',
    `exec "${process.execPath}" "${sup}" "$@"`,
    ''
  ].join('\n'), { mode: 0o755 })
  return file
}

/**
 * Run one script in a fresh copy of PM2's test tree, with `bin/pm2` beside it.
 * @param {string} script relative to test/e2e
 */
async function runScript (script) {
  const slug = script.replace(/[/.]/g, '-')
  const root = path.join(work, slug)
  fs.cpSync(pristine, root, { recursive: true })
  fs.mkdirSync(path.join(root, 'bin'))
  fs.copyFileSync(shim, path.join(root, 'bin', 'pm2'))
  fs.chmodSync(path.join(root, 'bin', 'pm2'), 0o755)
  // the scripts look in ~/.pm2 (logs, dump): HOME is the script's own, sup's home is where PM2's would be
  const home = path.join(root, 'home')
  fs.mkdirSync(home)
  const env = { ...process.env, HOME: home, SUP_HOME: path.join(home, '.pm2'), PM2_SILENT: 'true', NO_COLOR: '1' }
  const logFile = path.join(work, `${slug}.log`)
  const started = Date.now()
  const child = spawn('bash', [path.join('test', 'e2e', script)], { cwd: root, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk) => { output += chunk })
  child.stderr.on('data', (chunk) => { output += chunk })
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    killGroup(/** @type {number} */ (child.pid))
  }, SCRIPT_TIMEOUT_MS)
  const closed = new Promise((resolve) => child.on('close', resolve))
  // The script's end is its exit, not the end of its output: what it left in the background
  // (log-namespace.sh leaves `pm2 logs` running) holds the pipes open until it is killed.
  /** @type {number | null} */
  const code = await new Promise((resolve) => child.on('exit', (status) => resolve(status)))
  clearTimeout(timer)
  killGroup(/** @type {number} */ (child.pid))
  await closed
  spawnSync(process.execPath, [path.join(ROOT, 'bin', 'sup.js'), 'kill'], { env, stdio: 'ignore', timeout: 30_000 })
  fs.writeFileSync(logFile, output)
  const lines = output.split('\n')
  const failure = lines.find((line) => line.includes('✘'))
  return {
    script,
    code,
    timedOut,
    seconds: (Date.now() - started) / 1000,
    passed: lines.filter((line) => line.includes('✔')).length,
    failed: lines.filter((line) => line.includes('✘')).length,
    firstFailure: timedOut ? `(no end after ${SCRIPT_TIMEOUT_MS / 1000}s)` : failure ? failure.replace(/^#+\s*✘\s*/, '') : code === 0 ? '' : `(exit ${code}, no failed check: ${lines.filter(Boolean).at(-1)?.slice(0, 80) ?? ''})`
  }
}

/** @param {number} pid leader of a process group this script started */
function killGroup (pid) {
  try {
    process.kill(-pid, 'SIGKILL')
  } catch {}
}
