// @ts-check
// sup scale under load, and reloads that change an app's settings.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { describeLoad } from '../helpers/load.js'
import { APPS, freePort, httpGet, useSupHome, waitForExit } from '../helpers/sup.js'
import { underLoad, waitForHttp } from '../helpers/under-load.js'

test('scale 2 → 4 → 1 under load: 0 failed requests, the highest instances go', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)

  const seen = await underLoad(port, async () => {
    const up = await home.sup(['scale', 'web', '4'])
    assert.equal(up.code, 0, up.stderr)
    assert.match(up.stdout, /worker 2\/2 ready/)
    const four = await home.ls()
    assert.deepEqual(four.map((r) => r.instance).sort(), [0, 1, 2, 3])
    assert.ok(four.every((r) => r.status === 'online'))

    const down = await home.sup(['scale', 'web', '-3', '--json'])
    assert.equal(down.code, 0, down.stderr)
    const outcome = JSON.parse(down.stdout)
    assert.equal(outcome.outcome, 'scaled')
    assert.deepEqual([outcome.from, outcome.to], [4, 1])
    assert.deepEqual(outcome.retired.map((/** @type {any} */ r) => r.instance).sort(), [1, 2, 3])
    const one = await home.ls()
    assert.deepEqual(one.map((r) => [r.instance, r.status]), [[0, 'online']])
    await waitForExit(four.filter((r) => r.instance !== 0).map((r) => /** @type {number} */ (r.pid)))
    return four
  })
  assert.equal(seen.keepAlive.failed, 0, `keep-alive client: ${describeLoad(seen.keepAlive)}`)
  assert.equal(seen.fresh.failed, 0, `fresh-connection client: ${describeLoad(seen.fresh)}`)
  assert.ok(seen.value.every((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'all four workers served')

  const same = await home.sup(['scale', 'web', '1'])
  assert.equal(same.code, 0)
  assert.match(same.stdout, /web: already 1 worker; nothing to do/)
  const described = JSON.parse((await home.sup(['describe', 'web', '--json'])).stdout)
  assert.equal(described.config.instances, 1)
})

test('reloading with a config file applies its new env and instances; --update-env takes the shell\'s', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sup-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'ecosystem.config.json')
  const write = (/** @type {string} */ mode, /** @type {number} */ instances) => writeFileSync(file, JSON.stringify({
    apps: [{ name: 'cfg', script: join(APPS, 'http-server.js'), instances, exec_mode: 'cluster', env: { APP_MODE: mode } }]
  }))
  write('one', 2)
  const started = await home.sup(['start', file], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)
  assert.equal(JSON.parse((await httpGet(port)).body).env, 'one')

  write('two', 3)
  const reloaded = await home.sup(['reload', file], { env: { PORT: String(port) } })
  assert.equal(reloaded.code, 0, reloaded.stderr)
  assert.match(reloaded.stdout, /with the settings of the config file/)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.instance).sort(), [0, 1, 2])
  for (let i = 0; i < 6; i++) assert.equal(JSON.parse((await httpGet(port)).body).env, 'two')
  assert.equal(JSON.parse((await home.sup(['describe', 'cfg', '--json'])).stdout).config.instances, 3)

  // APP_MODE from the shell sits beneath the app's own env: an app without one shows it.
  const plain = join(APPS, 'http-server.js')
  await home.sup(['delete', 'cfg'])
  const again = await home.sup(['start', plain, '-i', '2', '--name', 'envy'], { env: { PORT: String(port), APP_MODE: 'old' } })
  assert.equal(again.code, 0, again.stderr)
  await waitForHttp(port)
  const kept = await home.sup(['reload', 'envy'], { env: { PORT: String(port), APP_MODE: 'new' } })
  assert.equal(kept.code, 0, kept.stderr)
  assert.equal(JSON.parse((await httpGet(port)).body).env, 'old', 'without --update-env the start-time environment stays')
  const updated = await home.sup(['reload', 'envy', '--update-env'], { env: { PORT: String(port), APP_MODE: 'new' } })
  assert.equal(updated.code, 0, updated.stderr)
  for (let i = 0; i < 4; i++) assert.equal(JSON.parse((await httpGet(port)).body).env, 'new')
})
