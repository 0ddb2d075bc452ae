// @ts-check
// Reload under load when timing is hard: slow starts, long requests, apps that say "ready" late.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { describeLoad } from '../helpers/load.js'
import { APPS, freePort, useSupHome, waitForExit } from '../helpers/sup.js'
import { underLoad, waitForHttp } from '../helpers/under-load.js'

const APP = join(APPS, 'tunable-http.js')

/**
 * Start the tunable app with -i 2, reload it once under load, and check the outcome.
 * @param {import('node:test').TestContext} t
 * @param {{ env: Record<string, string>, args?: string[], keepAlive?: number, settle?: number }} options
 */
async function reloadOnce (t, { env, args = [], keepAlive = 20, settle = 20 }) {
  const home = useSupHome(t)
  const port = await freePort()
  const started = await home.sup(['start', APP, '-i', '2', '--name', 'app', ...args], { env: { PORT: String(port), ...env } })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)
  const before = await home.ls()
  const seen = await underLoad(port, () => home.sup(['reload', 'app']), { keepAlive, settle })
  assert.equal(seen.value.code, 0, seen.value.stderr)
  assert.equal(seen.keepAlive.failed, 0, `keep-alive client: ${describeLoad(seen.keepAlive)}`)
  assert.equal(seen.fresh.failed, 0, `fresh-connection client: ${describeLoad(seen.fresh)}`)
  const after = await home.ls()
  assert.deepEqual(after.map((r) => r.status), ['online', 'online'])
  for (const row of after) assert.ok(!before.some((b) => b.pid === row.pid), 'every worker was replaced')
  await waitForExit(/** @type {number[]} */ (before.map((r) => r.pid)))
  return { home, before, after, seen }
}

test('an app that listens 1.5 s after start reloads under load with 0 failed requests', async (t) => {
  const { seen, after } = await reloadOnce(t, { env: { BOOT_DELAY_MS: '1500' } })
  // The reload waited for each new worker to listen, well past min_uptime (1 s).
  assert.match(seen.value.stdout, /worker 2\/2 ready/)
  assert.ok(after.every((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'the new workers served')
})

test('an app that listens 4 s after start reloads with --listen-timeout 8000 and 0 failed requests', async (t) => {
  await reloadOnce(t, { env: { BOOT_DELAY_MS: '4000' }, args: ['--listen-timeout', '8000'] })
})

test('requests that take 2 s complete while their worker is retired', async (t) => {
  const { seen, before } = await reloadOnce(t, { env: { REQUEST_MS: '2000' }, keepAlive: 10, settle: 1 })
  const answeredByOld = seen.bodies.filter((b) => before.some((r) => r.pid === b.pid)).length
  assert.ok(answeredByOld >= 10, `the old workers answered their slow requests (${answeredByOld})`)
})

test('a wait_ready app that says ready 1 s after listening gets no request before then', async (t) => {
  const { seen, after } = await reloadOnce(t, { env: { READY_DELAY_MS: '1000' }, args: ['--wait-ready'] })
  const early = seen.bodies.filter((b) => b.beforeReady)
  assert.equal(early.length, 0, `${early.length} requests reached a worker before it was ready, e.g. ${JSON.stringify(early[0])}`)
  assert.ok(after.every((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'the new workers served once ready')
})

test('a wait_ready app that never says ready aborts the reload after listen_timeout', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  // 600 s: never, as far as this test is concerned.
  const env = { PORT: String(port), READY_DELAY_MS: '600000' }
  const started = await home.sup(['start', APP, '-i', '1', '--name', 'mute', '--wait-ready', '--listen-timeout', '1500'], { env })
  // The first start has no old worker to protect: it comes online at listen_timeout, with a warning.
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)
  const [before] = await home.ls()
  const seen = await underLoad(port, () => home.sup(['reload', 'mute']))
  assert.equal(seen.value.code, 1)
  assert.match(seen.value.stderr, /reload aborted: new worker \d+ of mute \(instance 0, pid \d+\) was not ready within listen_timeout \(1500 ms\): it never sent "ready"/)
  assert.equal(seen.keepAlive.failed + seen.fresh.failed, 0, `keep-alive: ${describeLoad(seen.keepAlive)}; fresh: ${describeLoad(seen.fresh)}`)
  assert.ok(seen.bodies.every((b) => b.pid === before.pid), 'only the old worker served')
  const after = await home.ls()
  assert.deepEqual(after.map((r) => [r.id, r.pid, r.status]), [[before.id, before.pid, 'online']])
})
