// @ts-check
// PM2's ways of calling `start` (docs/pm2.md): several scripts at once, -f, a config on stdin,
// --namespace, -p, --no-autostart, and no target at all (ecosystem.config.js).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, SUP_BIN, useSupHome, waitForRows } from '../helpers/sup.js'

const SCRIPT = join(APPS, 'signal-logger.js')

/**
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} name
 */
async function configOf (home, name) {
  const described = await home.sup(['describe', name, '--json'])
  assert.equal(described.code, 0, described.stderr)
  return JSON.parse(described.stdout).config
}

test('start a.js b.js -- x: one app per script, each with the arguments after --', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', SCRIPT, join(APPS, 'print-env.js'), '--', '--port=1', 'x'])
  assert.equal(started.code, 0, started.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.name).sort(), ['print-env', 'signal-logger'])
  assert.deepEqual((await configOf(home, 'signal-logger')).args, ['--port=1', 'x'])
  assert.deepEqual((await configOf(home, 'print-env')).args, ['--port=1', 'x'])
  // several targets act on all of them, as PM2's multiparam script does
  assert.equal((await home.sup(['stop', 'signal-logger', 'print-env'])).code, 0)
  assert.ok((await home.ls()).every((r) => r.status === 'stopped'))
})

test('start -f: another copy of a running app joins it under the same name; one with other args is refused', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT])).code, 0)
  const forced = await home.sup(['start', SCRIPT, '-f', '-i', '2'])
  assert.equal(forced.code, 0, forced.stderr)
  assert.match(forced.stdout, /starting another copy of signal-logger \(-f\): 2 more workers/)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'three workers online' })
  assert.deepEqual(rows.map((r) => r.name), ['signal-logger', 'signal-logger', 'signal-logger'])
  assert.equal(new Set(rows.map((r) => r.id)).size, 3)
  assert.equal((await home.sup(['start', SCRIPT, '--force'])).code, 0)
  assert.equal((await home.ls()).length, 4)

  // the name targets every copy, an id one of them
  assert.equal((await home.sup(['restart', 'signal-logger'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.restarts), [1, 1, 1, 1])
  assert.equal((await home.sup(['stop', String(rows[0].id)])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.status), ['stopped', 'online', 'online', 'online'])

  // one app, one config: a copy that would run something else is refused, nothing started
  const other = await home.sup(['start', SCRIPT, '-f', '--', 'other-arg'])
  assert.equal(other.code, 1)
  assert.match(other.stderr, /^sup: app "signal-logger" already runs with another args: -f adds workers to it only for the same script and options/)
  assert.equal((await home.ls()).length, 4)
})

test('start - reads a config from stdin (paths from the caller\'s cwd); delete - deletes its apps', async (t) => {
  const home = useSupHome(t)
  const config = JSON.stringify({ apps: [{ name: 'piped-a', script: 'signal-logger.js' }, { name: 'piped-b', script: 'print-env.js', namespace: 'piped' }] })
  const started = await home.sup(['start', '-'], { input: config, cwd: APPS })
  assert.equal(started.code, 0, started.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.name), ['piped-a', 'piped-b'])
  assert.equal((await configOf(home, 'piped-a')).script, SCRIPT)

  const broken = await home.sup(['start', '-'], { input: '{ apps: [', cwd: APPS })
  assert.equal(broken.code, 1)
  assert.match(broken.stderr, /^sup: config file on stdin:1:\d+ could not be read/)

  const deleted = await home.sup(['delete', '-'], { input: config, cwd: APPS })
  assert.equal(deleted.code, 0, deleted.stderr)
  assert.deepEqual(await home.ls(), [])
})

test('--namespace puts the app in a namespace: a target, and a field of the ls --json rows', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'a', '--namespace', 'jobs'])).code, 0)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'b'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.namespace]), [['a', 'jobs'], ['b', 'default']])
  assert.equal((await home.sup(['stop', 'jobs'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.status), ['stopped', 'online'])
  const bad = await home.sup(['start', SCRIPT, '--name', 'c', '--namespace', 'no spaces'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /namespace/)
})

test('-p/--pid writes each worker\'s pid to a file of its own, removed when it stops', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-pid-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  assert.equal((await home.sup(['start', SCRIPT, '-p', join(dir, 'app.pid'), '-i', '2'])).code, 0)
  const rows = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'two workers online' })
  for (const row of rows) {
    const file = join(dir, `app-${row.id}.pid`)
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8') === `${row.pid}\n`, { what: `${file} holding ${row.pid}` })
  }
  assert.equal((await home.sup(['stop', 'all'])).code, 0)
  await waitFor(() => rows.every((r) => !existsSync(join(dir, `app-${r.id}.pid`))), { what: 'the pid files removed' })
})

test('--no-autostart registers the app stopped; restart starts it', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', SCRIPT, '--no-autostart'])
  assert.equal(started.code, 0, started.stderr)
  const [row] = await home.ls()
  assert.equal(row.status, 'stopped')
  assert.equal(row.pid, null)
  assert.equal((await home.sup(['restart', 'signal-logger'])).code, 0)
  await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'the app online after restart' })
})

test('start with no target starts ./ecosystem.config.js, as pm2 start does', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-eco-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const none = await home.sup(['start'], { cwd: dir })
  assert.equal(none.code, 1)
  assert.match(none.stderr, /^sup: config file ".*ecosystem\.config\.js" not found/)
  writeFileSync(join(dir, 'ecosystem.config.js'), `module.exports = { apps: [{ name: 'eco', script: ${JSON.stringify(SCRIPT)} }] }\n`)
  const started = await home.sup(['start'], { cwd: dir })
  assert.equal(started.code, 0, started.stderr)
  assert.deepEqual((await home.ls()).map((r) => r.name), ['eco'])
})

test('init writes a sample ecosystem.config.js that sup start runs; one already there is kept as .bak and written over, as PM2 writes over it', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-init-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const simple = await home.sup(['init', 'simple'], { cwd: dir })
  assert.equal(simple.code, 0, simple.stderr)
  const file = join(dir, 'ecosystem.config.js')
  writeFileSync(join(dir, 'app.js'), 'setInterval(() => {}, 1000)\n')
  assert.equal((await home.sup(['start'], { cwd: dir })).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.status]), [['app', 'online']])

  const byHand = "module.exports = { apps: [{ name: 'mine', script: './app.js' }] }\n"
  writeFileSync(file, byHand)
  // PM2's cli-actions-1.sh: `pm2 init echo` where a file is there must succeed
  const over = await home.sup(['init', 'echo'], { cwd: dir })
  assert.equal(over.code, 0, over.stderr)
  assert.equal(over.stdout, `wrote ${file} (sup start ecosystem.config.js starts its apps); the file that was there is ${file}.bak\n`)
  assert.match(readFileSync(file, 'utf8'), /name: 'worker'/, 'the full sample')
  assert.equal(readFileSync(`${file}.bak`, 'utf8'), byHand, 'the hand-written file is kept')

  const again = await home.sup(['ecosystem', '--force'], { cwd: dir })
  assert.equal(again.code, 0, again.stderr)
  assert.match(again.stdout, /is already the sample/)
  assert.equal(readFileSync(`${file}.bak`, 'utf8'), byHand, 'a second init does not push the hand-written file out')
})

test('logs <namespace> follows the lines of every app in it, as pm2 logs <namespace>', async (t) => {
  const home = useSupHome(t)
  for (const name of ['a', 'b']) {
    assert.equal((await home.sup(['start', SCRIPT, '--name', name, '--namespace', 'jobs'])).code, 0)
  }
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'other'])).code, 0)
  const follower = spawn(process.execPath, [SUP_BIN, 'logs', 'jobs', '--lines', '0'], { env: home.env })
  t.after(() => follower.kill('SIGKILL'))
  let output = ''
  follower.stdout.on('data', (chunk) => { output += chunk })
  // the follower prints nothing until a line comes: signal (each 300 ms) until both apps' lines arrive live
  const both = () => /^a\[0\] out \| got SIGUSR2/m.test(output) && /^b\[0\] out \| got SIGUSR2/m.test(output)
  await waitFor(async () => {
    if (both()) return true
    assert.equal((await home.sup(['signal', 'SIGUSR2', 'a', 'b', 'other'])).code, 0)
    return both()
  }, { what: 'SIGUSR2 lines of a and b from sup logs jobs', timeout: 15_000, interval: 300, show: () => `it printed: ${output}` })
  assert.doesNotMatch(output, /^other\[/m)
  follower.kill('SIGINT')
})

test('PM2 command lines: -s keeps logs and jlist output, ls answers to l and ps, PM2\'s --no-vizion/--no-pmx/--no-automation are accepted', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', SCRIPT, '--no-automation', '--no-vizion', '--no-pmx', '--disable-trace', '--disable-source-map-support'])
  assert.equal(started.code, 0, started.stderr)
  await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'the app online' })
  const logs = await home.sup(['logs', 'signal-logger', '--nostream', '--lines', '5'], { env: { PM2_SILENT: 'true' } })
  assert.equal(logs.code, 0, logs.stderr)
  assert.match(logs.stdout, /signal-logger\[0\] out \| ready/)
  assert.equal(JSON.parse((await home.sup(['-s', 'jlist'])).stdout).length, 1)
  assert.deepEqual(await home.sup(['-s', 'ls']), { code: 0, stdout: '', stderr: '' })
  assert.deepEqual(await home.sup(['stop', 'all'], { env: { PM2_SILENT: 'true' } }), { code: 0, stdout: '', stderr: '' })
  for (const verb of ['l', 'ps']) {
    const listed = await home.sup([verb])
    assert.equal(listed.code, 0, listed.stderr)
    assert.match(listed.stdout, /^id +name +mode/)
    assert.match(listed.stdout, /signal-logger +fork +- +stopped/)
  }
})

test('logs --raw prints the lines alone; --timestamp [pattern] puts the time each was written first', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT])).code, 0)
  await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'the app online' })
  assert.equal((await home.sup(['logs', 'signal-logger', '--nostream', '--raw'])).stdout, 'ready\n')
  const year = String(new Date().getFullYear())
  assert.equal((await home.sup(['logs', 'signal-logger', '--nostream', '--raw', '--timestamp', 'YYYY'])).stdout, `${year} ready\n`)
  const stamped = await home.sup(['logs', 'signal-logger', '--nostream', '--timestamp'])
  assert.match(stamped.stdout, /^\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d signal-logger\[0\] out \| ready\n$/)
})
