// @ts-check
// Proof of design §4: reloads under load lose no request, and a bad release is refused.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, isAlive, useSupHome } from '../helpers/sup.js'
import { assertNoFailedRequests, assertReplaced, reloadUnderLoad, underLoad, waitForHttp } from '../helpers/under-load.js'

/** @typedef {import('../../ipc/methods.js').WorkerRow} WorkerRow */

/**
 * Start an app and wait until it answers HTTP.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
async function startApp (home, args, env) {
  const result = await home.sup(['start', ...args], { env })
  assert.equal(result.code, 0, result.stderr)
  await waitForHttp(Number(env.PORT))
  return home.ls()
}

test('a plain node:http app (-i 2, no signal handling) reloads 3 times under keep-alive and fresh-connection load with 0 failed requests', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startApp(home, [join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { PORT: String(port) })
  await reloadUnderLoad(home, 'web', port, 3)
})

test('the same app on express reloads 3 times under load with 0 failed requests', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startApp(home, [join(APPS, 'express-server.js'), '-i', '2', '--name', 'api'], { PORT: String(port) })
  await reloadUnderLoad(home, 'api', port, 3)
})

test('a 1-worker app reloads under load with 0 failed requests', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startApp(home, [join(APPS, 'http-server.js'), '-i', '1', '--name', 'solo'], { PORT: String(port) })
  await reloadUnderLoad(home, 'solo', port, 2)
})

test('a new version that crashes on boot aborts the reload; the old workers keep serving', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sup-version-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const versionFile = join(dir, 'version')
  writeFileSync(versionFile, 'v1')
  const before = await startApp(home, [join(APPS, 'tunable-http.js'), '-i', '2', '--name', 'bad'], { PORT: String(port), VERSION_FILE: versionFile })

  writeFileSync(versionFile, 'crash')
  const seen = await underLoad(port, () => home.sup(['reload', 'bad']))
  const result = seen.value
  assert.notEqual(result.code, 0, 'a failed reload exits non-zero')
  assert.match(result.stderr, /^sup: reload aborted: new worker \d+ of bad \(instance 0, pid \d+\) exited with code 3 before it was ready/m)
  assertNoFailedRequests(seen)
  assert.ok(seen.bodies.every((b) => b.version === 'v1'), 'only the old version answered')

  const after = await home.ls()
  assert.deepEqual(after.map((r) => [r.id, r.pid, r.status]), before.map((r) => [r.id, r.pid, 'online']), 'the old workers are the app, untouched')
  for (const row of before) assert.ok(isAlive(/** @type {number} */ (row.pid)))

  const text = await home.sup(['describe', 'bad'])
  assert.match(text.stdout, /^last reload: aborted \d+s ago: new worker \d+ of bad .* exited with code 3/m)
  const described = JSON.parse((await home.sup(['describe', 'bad', '--json'])).stdout)
  assert.equal(described.last_rollout.outcome, 'aborted')
  assert.match(described.last_rollout.reason, /exited with code 3/)
  assert.equal(described.last_rollout.failed.length, 1)
  assert.ok(!isAlive(described.last_rollout.failed[0].pid), 'the failed new worker is gone')

  const json = await home.sup(['reload', 'bad', '--json'])
  assert.notEqual(json.code, 0)
  const outcome = JSON.parse(json.stdout).apps[0]
  assert.equal(outcome.outcome, 'aborted')
  assert.equal(outcome.code, 'SUP_ERR_RELOAD_ABORTED')
})

test('a second reload of an app while one runs is refused with SUP_ERR_RELOAD_IN_PROGRESS', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startApp(home, [join(APPS, 'tunable-http.js'), '-i', '1', '--name', 'slow'], { PORT: String(port), BOOT_DELAY_MS: '3000' })
  const conn = await home.connect()
  t.after(() => conn.close())
  await conn.request('subscribe', { topics: ['reload.progress'], apps: ['slow'] })
  const begun = new Promise((resolve) => conn.on('event', (topic, data) => { if (data.phase === 'begin') resolve(data) }))
  const first = home.sup(['reload', 'slow'])
  await begun
  // The new worker takes 3 s to listen: both refusals come well before that.
  await assert.rejects(conn.request('app.scale', { target: 'slow', count: '2' }), { code: 'SUP_ERR_RELOAD_IN_PROGRESS' })
  const second = await home.sup(['reload', 'slow'])
  assert.equal(second.code, 1)
  assert.match(second.stderr, /^sup: a reload of app "slow" is already running/)
  const done = await first
  assert.equal(done.code, 0, done.stderr)
})

test('reload of a fork-mode app falls back to restart and says so', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const before = await startApp(home, [join(APPS, 'http-server.js'), '--name', 'forked'], { PORT: String(port) })
  const result = await home.sup(['reload', 'forked'])
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /forked runs in fork mode: reload falls back to restart \(stop, then start\)/)
  const after = await home.ls()
  assert.equal(after[0].id, before[0].id)
  assert.notEqual(after[0].pid, before[0].pid)
  assert.equal(after[0].status, 'online')
})

test('reload and scale reject bad limits and counts with one line', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startApp(home, [join(APPS, 'http-server.js'), '-i', '1', '--name', 'web'], { PORT: String(port) })
  const zero = await home.sup(['reload', 'web', '--surge', '0'])
  assert.equal(zero.code, 1)
  assert.match(zero.stderr, /^sup: --surge 0 needs --max-unavailable of at least 1/)
  const scale = await home.sup(['scale', 'web', '-5'])
  assert.equal(scale.code, 1)
  assert.match(scale.stderr, /^sup: cannot scale "web" to "-5": that leaves -4 workers/)
  const missing = await home.sup(['reload', 'nope'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^sup: app "nope" not found/)
})

test('reload all goes app by app and reports each', async (t) => {
  const home = useSupHome(t)
  const [a, b] = [await freePort(), await freePort()]
  await startApp(home, [join(APPS, 'http-server.js'), '-i', '1', '--name', 'one'], { PORT: String(a) })
  await startApp(home, [join(APPS, 'http-server.js'), '-i', '2', '--name', 'two'], { PORT: String(b) })
  const before = await home.ls()
  const result = await home.sup(['reload', 'all', '--json'])
  assert.equal(result.code, 0, result.stderr)
  const { apps, workers } = JSON.parse(result.stdout)
  assert.deepEqual(apps.map((/** @type {any} */ o) => [o.name, o.outcome, o.started.length, o.retired.length]), [['one', 'reloaded', 1, 1], ['two', 'reloaded', 2, 2]])
  // One app after the other: the second began after the first ended.
  assert.ok(apps[1].at - apps[1].ms >= apps[0].at)
  assert.equal(workers.length, 3)
  await assertReplaced(before, await home.ls())
})
