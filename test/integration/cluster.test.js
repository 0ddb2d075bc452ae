// @ts-check
import assert from 'node:assert/strict'
import { availableParallelism } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitForHttp } from '../helpers/under-load.js'
import { APPS, freePort, httpGet, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { waitForHttp } from '../helpers/under-load.js'

/**
 * GET until `count` distinct pids have answered (round-robin spreads fresh connections).
 * @param {number} port
 * @param {number} count
 */
async function collectPids (port, count) {
  const pids = new Set()
  for (let i = 0; i < 50 && pids.size < count; i++) {
    const { status, body } = await httpGet(port)
    assert.equal(status, 200)
    pids.add(JSON.parse(body).pid)
  }
  return pids
}

test('-i 2 runs two cluster workers that both serve HTTP on one port', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const result = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  assert.equal(result.code, 0, result.stderr)
  assert.match(result.stdout, /web\[0\] online/)

  const rows = await home.ls()
  assert.equal(rows.length, 2)
  for (const row of rows) {
    assert.equal(row.mode, 'cluster')
    assert.equal(row.status, 'online')
    assert.equal(typeof row.pid, 'number')
  }
  assert.deepEqual(rows.map((r) => r.instance).sort(), [0, 1])
  const pids = await collectPids(port, 2)
  assert.deepEqual([...pids].sort(), rows.map((r) => r.pid).sort())

  const stop = await home.sup(['delete', 'web'])
  assert.equal(stop.code, 0, stop.stderr)
  await waitForExit(/** @type {number[]} */ (rows.map((r) => r.pid)))
  assert.deepEqual(await home.ls(), [])
})

test('-i max starts one worker per CPU, -i -1 one fewer (at least 1)', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const env = { PORT: String(port) }
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', 'max', '--name', 'max'], { env })).code, 0)
  assert.equal((await home.ls()).length, availableParallelism())
  await home.sup(['delete', 'max'])
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '-1', '--name', 'minus'], { env })).code, 0)
  assert.equal((await home.ls()).length, Math.max(1, availableParallelism() - 1))
})

test('a worker killed with SIGKILL is replaced and counted', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })).code, 0)
  const [victim, other] = await home.ls()
  process.kill(/** @type {number} */ (victim.pid), 'SIGKILL')

  const rows = await waitForRows(home, (rs) => {
    const row = rs.find((r) => r.id === victim.id)
    return row?.status === 'online' && row.pid !== victim.pid
  }, { what: 'the killed worker to be replaced' })
  const replaced = /** @type {import('../../ipc/methods.js').WorkerRow} */ (rows.find((r) => r.id === victim.id))
  assert.equal(replaced.restarts, 1)
  assert.equal(replaced.instance, victim.instance)
  const untouched = rows.find((r) => r.id === other.id)
  assert.equal(untouched?.pid, other.pid)
  assert.equal(untouched?.restarts, 0)
  const pids = await collectPids(port, 2)
  assert.ok(pids.has(replaced.pid), 'the replacement serves traffic')
})

test('ESM with top-level await and require.main apps run unchanged as cluster workers', async (t) => {
  const home = useSupHome(t)
  const esmPort = await freePort()
  const cjsPort = await freePort()
  const esm = await home.sup(['start', join(APPS, 'esm-tla.mjs'), '-i', '2'], { env: { PORT: String(esmPort) } })
  assert.equal(esm.code, 0, esm.stderr)
  const cjs = await home.sup(['start', join(APPS, 'require-main.cjs'), '-i', '2'], { env: { PORT: String(cjsPort) } })
  assert.equal(cjs.code, 0, cjs.stderr)
  // A worker slower than min_uptime to listen (a busy machine) is online before it listens.
  await waitForHttp(esmPort)
  await waitForHttp(cjsPort)

  // "online" can come from min_uptime before a slow worker listens: wait for the ports.
  await Promise.all([waitForHttp(esmPort), waitForHttp(cjsPort)])
  const esmBody = JSON.parse((await httpGet(esmPort)).body)
  assert.equal(esmBody.esm, true)
  assert.equal(esmBody.url, `file://${join(APPS, 'esm-tla.mjs')}`)
  const cjsBody = JSON.parse((await httpGet(cjsPort)).body)
  assert.equal(cjsBody.main, true, 'require.main === module holds in the worker')
  assert.equal(cjsBody.filename, join(APPS, 'require-main.cjs'))
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => `${r.name}:${r.mode}:${r.status}`).sort(), [
    'esm-tla:cluster:online', 'esm-tla:cluster:online', 'require-main:cluster:online', 'require-main:cluster:online'
  ])
})
