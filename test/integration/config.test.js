// @ts-check
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, httpGet, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitForHttp } from '../helpers/under-load.js'

test('an ecosystem file with env_production runs under --env production, --only picks apps', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const eco = join(APPS, 'ecosystem.config.cjs')
  const result = await home.sup(['start', eco, '--env', 'production', '--only', 'eco-api'], { env: { PORT: String(port) } })
  assert.equal(result.code, 0, result.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => `${r.name}/${r.mode}/${r.instance}`).sort(), ['eco-api/cluster/0', 'eco-api/cluster/1'])
  const body = JSON.parse((await httpGet(port)).body)
  assert.equal(body.env, 'production')
  assert.ok(body.instance === '0' || body.instance === '1', 'NODE_APP_INSTANCE is set per worker')

  // The config file works as a target too.
  const stop = await home.sup(['stop', eco, '--only', 'eco-api'])
  assert.equal(stop.code, 0, stop.stderr)
  assert.deepEqual((await home.ls()).map((r) => r.status), ['stopped', 'stopped'])
})

test('without --env, the base env applies; increment_var gives each instance its own port', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-eco-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const base = await freePort(2)
  writeFileSync(join(dir, 'ecosystem.config.json'), JSON.stringify({
    apps: [{ name: 'ports', script: join(APPS, 'http-server.js'), instances: 2, exec_mode: 'fork', increment_var: 'PORT', env: { PORT: base, APP_MODE: 'dev' }, env_production: { APP_MODE: 'prod' } }]
  }))
  const result = await home.sup(['start', join(dir, 'ecosystem.config.json')])
  assert.equal(result.code, 0, result.stderr)
  await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'both online' })
  // A fork worker is online once spawned; it listens a moment later (longer on a busy machine).
  await Promise.all([waitForHttp(base), waitForHttp(base + 1)])
  const first = JSON.parse((await httpGet(base)).body)
  const second = JSON.parse((await httpGet(base + 1)).body)
  assert.deepEqual([first.instance, second.instance, first.env], ['0', '1', 'dev'])
})

test('bad input gets a one-line error, a non-zero exit, and leaves the daemon and its apps intact', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sup-bad-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  mkdirSync(join(dir, 'a-directory'))
  writeFileSync(join(dir, 'broken.config.cjs'), 'module.exports = {\n  apps: [\n    { name: "x", script: "a.js" ]\n}\n')
  writeFileSync(join(dir, 'bad name.js'), '')

  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'keeper'], { env: { PORT: String(port) } })).code, 0)
  const before = await home.ls()

  /** @type {Array<[string[], RegExp]>} */
  const cases = [
    [['start', join(dir, 'missing.js')], /script ".*missing\.js" not found/],
    [['start', join(dir, 'a-directory')], /is a directory/],
    [['start', join(APPS, 'http-server.js'), '-i', 'abc'], /invalid instance count "abc"/],
    [['start', join(APPS, 'http-server.js'), '--name', '../escape'], /app name "\.\.\/escape" is not allowed/],
    [['start', join(dir, 'bad name.js')], /app name "bad name" is not allowed/],
    [['start', join(dir, 'broken.config.cjs')], /broken\.config\.cjs:3/],
    [['start', join(APPS, 'http-server.js'), '--name', 'keeper'], /app "keeper" already exists/],
    [['start', join(APPS, 'http-server.js'), '--kill-timeout', 'soon'], /invalid kill_timeout "soon"/],
    [['stop', 'nope'], /app "nope" not found \(sup ls lists apps\)/],
    [['restart', '4242'], /app "4242" not found/],
    [['describe', 'nope'], /app "nope" not found/],
    [['signal', 'SIGNOPE', 'keeper'], /unknown signal "SIGNOPE"/],
    [['logs', 'keeper', '--lines', 'many', '--nostream'], /--lines must be a whole number/],
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['start', join(APPS, 'http-server.js'), '--bogus'], /unknown option '--bogus'/]
  ]
  for (const [args, pattern] of cases) {
    const result = await home.sup(args)
    const what = `sup ${args.join(' ')}`
    assert.notEqual(result.code, 0, `${what} should fail`)
    assert.match(result.stderr, pattern, what)
    assert.match(result.stderr, /^sup: /, `${what}: the message starts with "sup: "`)
    assert.equal(result.stderr.trim().split('\n').length, 1, `${what}: one line, no stack trace: ${result.stderr}`)
  }

  const after = await home.ls()
  assert.deepEqual(after.map((r) => [r.id, r.pid, r.status]), before.map((r) => [r.id, r.pid, r.status]))
  assert.equal(JSON.parse((await httpGet(port)).body).pid, before[0].pid)
})

test('commands that need a daemon say so when none runs', async (t) => {
  const home = useSupHome(t)
  for (const args of [['stop', 'x'], ['describe', 'x'], ['logs', '--nostream']]) {
    const result = await home.sup(args)
    assert.equal(result.code, 1)
    assert.match(result.stderr, /^sup: no daemon is running for .* \(any "sup start" starts one\)\n$/)
  }
  const kill = await home.sup(['kill'])
  assert.equal(kill.code, 0)
  assert.match(kill.stdout, /no daemon running/)
})
