// @ts-check
// What a config file asks for that has no effect is said on stderr, once; -s hushes it
// (issue 20 item 4). PM2 files carry keys sup does not use, so these are warnings: the start
// goes on.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, ROOT, useSupHome } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

const SCRIPT = join(APPS, 'message-logger.js')

/**
 * A folder with an ecosystem file of these apps, removed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>[]} apps
 */
function writeConfig (t, apps) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-warn-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'ecosystem.config.js'), `module.exports = ${JSON.stringify({ apps })}\n`)
  return dir
}

/**
 * How many times a text occurs in another.
 * @param {string} text
 * @param {string} part
 */
const count = (text, part) => text.split(part).length - 1

test('keys sup does not use are warned about once, with a did-you-mean or PM2\'s key named; -s hushes them', async (t) => {
  const home = useSupHome(t)
  const dir = writeConfig(t, [{ name: 'api', script: SCRIPT, instancse: 2, watchh: true, pmx: false, env_production: { A: '1' } }])
  const started = await home.sup(['start', 'ecosystem.config.js'], { cwd: dir })
  assert.equal(started.code, 0, started.stderr)
  for (const line of [
    'sup: ecosystem.config.js: app "api": unknown key "instancse" is ignored (did you mean "instances"?)',
    'sup: ecosystem.config.js: app "api": unknown key "watchh" is ignored (did you mean "watch"?)',
    'sup: ecosystem.config.js: app "api": ignored: PM2\'s "pmx" key has no effect under sup (sup has no @pm2/io agent)'
  ]) assert.equal(count(started.stderr, `${line}\n`), 1, `once: ${line}\n${started.stderr}`)
  assert.doesNotMatch(started.stderr, /env_production/, 'env_<name> keys are known')
  assert.equal((await home.ls()).length, 1, 'the misspelt instances count is not taken')

  const quiet = await home.sup(['start', 'ecosystem.config.js', '-s'], { cwd: dir })
  assert.equal(quiet.code, 0, quiet.stderr)
  assert.doesNotMatch(quiet.stderr, /ignored/)
})

test('flags with a config file: -i and --watch apply, as in PM2; the flags that do not are named', async (t) => {
  const home = useSupHome(t)
  const dir = writeConfig(t, [{ name: 'api', script: SCRIPT }, { name: 'worker', script: SCRIPT }])
  const started = await home.sup(['start', 'ecosystem.config.js', '--only', 'worker', '-i', '3', '--watch', '--kill-timeout', '100'], { cwd: dir })
  assert.equal(started.code, 0, started.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.name), ['worker', 'worker', 'worker'])
  const described = await home.sup(['describe', 'worker', '--json'])
  const { config } = JSON.parse(described.stdout)
  assert.equal(config.watch, true)
  assert.equal(config.kill_timeout, 5000, '--kill-timeout is not taken')
  assert.equal(count(started.stderr, 'sup: ecosystem.config.js: --kill-timeout does not apply to a config file\'s apps (set kill_timeout in the file); ignored\n'), 1, started.stderr)
})

test('--env with no env_<name> in any app names the file and the apps', async (t) => {
  const home = useSupHome(t)
  const dir = writeConfig(t, [{ name: 'api', script: SCRIPT, env_production: { A: '1' } }, { name: 'worker', script: SCRIPT }])
  const started = await home.sup(['start', 'ecosystem.config.js', '--env', 'staging'], { cwd: dir })
  assert.equal(started.code, 0, started.stderr)
  assert.equal(count(started.stderr, 'sup: ecosystem.config.js: --env staging: no app has env_staging (api, worker): they start with their env only\n'), 1, started.stderr)
  const production = await home.sup(['restart', 'all'], { cwd: dir })
  assert.equal(production.code, 0, production.stderr)
  const again = await home.sup(['start', 'ecosystem.config.js', '--env', 'production'], { cwd: dir })
  assert.equal(again.code, 0, again.stderr)
  assert.doesNotMatch(again.stderr, /--env/, 'one app has env_production')
})

test('a value of the wrong type names the file, the app and the key', async (t) => {
  const home = useSupHome(t)
  /** @type {Array<[Record<string, unknown>, string]>} */
  const cases = [
    [{ instances: 'abc' }, 'sup: ecosystem.config.js: app "api": invalid instance count "abc": instances must be a number, "max", 0 (= max) or -N (CPUs minus N)\n'],
    [{ kill_timeout: 'soon' }, 'sup: ecosystem.config.js: app "api": invalid kill_timeout "soon": use milliseconds, or a number with ms, s, m or h (e.g. 5s)\n']
  ]
  for (const [keys, message] of cases) {
    const dir = writeConfig(t, [{ name: 'api', script: SCRIPT, ...keys }])
    const started = await home.sup(['start', 'ecosystem.config.js'], { cwd: dir })
    assert.equal(started.code, 1)
    assert.equal(started.stderr, message)
  }
})

test('--only and --env with a script, not a config file, are said to have nothing to apply to', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', SCRIPT, '--name', 'solo', '--only', 'x', '--env', 'production'])
  assert.equal(started.code, 0, started.stderr)
  assert.equal(count(started.stderr, 'sup: --only applies to the apps of a config file; ignored\n'), 1, started.stderr)
  assert.equal(count(started.stderr, 'sup: --env applies to the apps of a config file; ignored\n'), 1, started.stderr)
})

test('restart, reload and sup-runtime with a config file warn like start does, once; -s hushes them', async (t) => {
  const home = useSupHome(t)
  const dir = writeConfig(t, [{ name: 'api', script: SCRIPT, instancse: 2 }])
  const line = 'ecosystem.config.js: app "api": unknown key "instancse" is ignored (did you mean "instances"?)\n'
  const started = await home.sup(['start', 'ecosystem.config.js', '-s'], { cwd: dir })
  assert.equal(started.code, 0, started.stderr)
  for (const verb of ['restart', 'reload']) {
    const acted = await home.sup([verb, 'ecosystem.config.js'], { cwd: dir })
    assert.equal(acted.code, 0, acted.stderr)
    assert.equal(count(acted.stderr, `sup: ${line}`), 1, `${verb}: ${acted.stderr}`)
    const quiet = await home.sup([verb, 'ecosystem.config.js', '-s'], { cwd: dir })
    assert.equal(quiet.code, 0, quiet.stderr)
    assert.doesNotMatch(quiet.stderr, /ignored/, `${verb} -s`)
  }
  await home.sup(['kill'])
  // sup-runtime reads the same file: the warning, then the app online; SIGTERM ends it.
  const runtime = spawn(process.execPath, [join(ROOT, 'bin', 'sup-runtime.js'), 'ecosystem.config.js'], { cwd: dir, env: home.env, stdio: ['ignore', 'ignore', 'pipe'] })
  t.after(() => runtime.kill('SIGKILL'))
  let stderr = ''
  runtime.stderr.setEncoding('utf8').on('data', (chunk) => { stderr += chunk })
  await waitFor(() => /api\[0\] online/.test(stderr), { what: 'sup-runtime to start api', show: () => stderr })
  runtime.kill('SIGTERM')
  await once(runtime, 'exit')
  assert.equal(count(stderr, `sup-runtime: ${line}`), 1, stderr)
})
