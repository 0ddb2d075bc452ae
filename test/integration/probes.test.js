// @ts-check
// Readiness and liveness probes on real daemons and real HTTP (docs/probes.md): a worker that
// hangs is restarted by its liveness probe within period × failure_threshold, counted with the
// reason in `sup ls --json`; a worker whose readiness probe does not pass yet gets no request.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { describeLoad } from '../helpers/load.js'
import { readDaemonPid } from '../../client/daemon.js'
import { APPS, freePort, httpGet, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { underLoad, waitForHttp } from '../helpers/under-load.js'
import { waitFor } from '../helpers/wait.js'

const LIVENESS = { http: '/healthz', period: 1000, timeout: 800, failure_threshold: 3 }
/** Beyond period × failure_threshold (+ the last timeout): the stop ladder, a new process, a busy machine. */
const SLACK = 4000

/**
 * A config file for one app of probed-http.js.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} app
 */
function configFile (t, app) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-probes-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'ecosystem.config.json')
  writeFileSync(file, JSON.stringify({ apps: [{ name: 'web', script: join(APPS, 'probed-http.js'), kill_timeout: 1000, ...app }] }))
  return file
}

for (const mode of /** @type {const} */ (['fork', 'cluster'])) {
  test(`${mode} mode: a hung worker is restarted by its liveness probe, counted with the reason`, async (t) => {
    const home = useSupHome(t)
    const port = await freePort()
    const instances = mode === 'cluster' ? 2 : 1
    const file = configFile(t, { exec_mode: mode, instances, env: { PORT: String(port) }, liveness: LIVENESS })
    const started = await home.sup(['start', file])
    assert.equal(started.code, 0, started.stderr)
    await waitForHttp(port)
    const before = await home.ls()
    assert.ok(before.every((r) => r.status === 'online' && r.liveness_restarts === 0 && r.last_restart === null), JSON.stringify(before))

    const { status } = await httpGet(port, '/hang')
    assert.equal(status, 200)
    const hungAt = Date.now()
    const bound = LIVENESS.period * LIVENESS.failure_threshold + LIVENESS.timeout + SLACK
    const rows = await waitForRows(home, (rs) => rs.some((r) => r.liveness_restarts === 1 && r.status === 'online'), { timeout: bound, what: 'the hung worker restarted and online' })
    const took = Date.now() - hungAt
    const restarted = rows.filter((r) => r.liveness_restarts === 1)
    assert.equal(restarted.length, 1, JSON.stringify(rows))
    const [row] = restarted
    assert.ok(!before.some((r) => r.pid === row.pid), 'a new process')
    assert.equal(row.restarts, 1)
    assert.match(row.last_restart?.reason ?? '', /^liveness probe failed: (timed out after 800 ms|GET \/healthz: .*)$/)
    assert.ok(took <= bound, `restarted ${took} ms after it hung`)
    t.diagnostic(`${mode}: the hung worker was online again ${took} ms after it hung (period × failure_threshold = ${LIVENESS.period * LIVENESS.failure_threshold} ms, bound ${bound} ms)`)
    // The others were left alone, and the app serves again.
    assert.ok(rows.filter((r) => r !== row).every((r) => r.liveness_restarts === 0 && before.some((b) => b.pid === r.pid)))
    await waitForHttp(port)

    const described = JSON.parse((await home.sup(['describe', 'web', '--json'])).stdout)
    assert.equal(described.workers.find((/** @type {any} */ w) => w.id === row.id).liveness_restarts, 1)
    const text = await home.sup(['describe', 'web'])
    assert.match(text.stdout, /liveness probe failed/)
  })
}

test('cluster mode: a worker whose readiness probe does not pass yet never receives a request', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const notReadyMs = 2000
  const file = configFile(t, {
    exec_mode: 'cluster',
    instances: 1,
    env: { PORT: String(port), NOT_READY_MS: String(notReadyMs) },
    readiness: { http: '/ready', period: 200, failure_threshold: 1 }
  })
  const t0 = Date.now()
  const started = await home.sup(['start', file])
  assert.equal(started.code, 0, started.stderr)
  // Online only once ready: listening (at once) was not enough.
  assert.ok(Date.now() - t0 >= notReadyMs, `sup start answered after ${Date.now() - t0} ms`)
  const [first] = await home.ls()
  assert.deepEqual([first.status, first.ready], ['online', true])

  const seen = await underLoad(port, async (live) => {
    const scaling = home.sup(['scale', 'web', '2'])
    // While it is not ready the new worker is starting, and not ready.
    const mid = await waitForRows(home, (rs) => rs.length === 2, { what: 'the new worker' })
    const fresh = mid.find((r) => r.id !== first.id)
    assert.deepEqual([fresh?.status, fresh?.ready], ['starting', false])
    const scaled = await scaling
    assert.equal(scaled.code, 0, scaled.stderr)
    const reloaded = await home.sup(['reload', 'web'])
    assert.equal(reloaded.code, 0, reloaded.stderr)
    const rows = await home.ls()
    await waitFor(() => rows.every((r) => live.pids.has(/** @type {number} */ (r.pid))), {
      what: 'every new worker to serve',
      show: () => `served: ${[...live.pids].join(' ')}; new: ${rows.map((r) => r.pid).join(' ')}`
    })
    return rows
  })
  assert.equal(seen.keepAlive.failed, 0, `keep-alive client: ${describeLoad(seen.keepAlive)}`)
  assert.equal(seen.fresh.failed, 0, `fresh-connection client: ${describeLoad(seen.fresh)}`)
  const unready = seen.bodies.filter((b) => b.ready !== true)
  t.diagnostic(`${seen.bodies.length} answers during scale 1 → 2 and a reload, ${unready.length} from a worker that was not ready; ${seen.keepAlive.failed + seen.fresh.failed} failed`)
  assert.equal(unready.length, 0, `${unready.length} of ${seen.bodies.length} requests reached a worker that was not ready (pids ${[...new Set(unready.map((b) => b.pid))].join(', ')})`)
  // The new workers did serve, once ready.
  const last = seen.value
  assert.equal(last.length, 2)
  assert.ok(last.every((r) => r.status === 'online' && r.ready === true), JSON.stringify(last))
  assert.ok(last.every((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'every new worker served once ready')
})

test('depends_on: an app starts once its dependency is ready; unknown names and circles are refused', async (t) => {
  const home = useSupHome(t)
  const [port, apiPort] = [await freePort(), await freePort()]
  const dir = mkdtempSync(join(tmpdir(), 'sup-probes-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const write = (/** @type {string} */ name, /** @type {Record<string, unknown>[]} */ apps) => {
    const file = join(dir, name)
    writeFileSync(file, JSON.stringify({ apps: apps.map((a) => ({ script: join(APPS, 'probed-http.js'), kill_timeout: 1000, ...a })) }))
    return file
  }
  const notReadyMs = 1500
  // The dependent first in the file: the order comes from depends_on.
  const started = await home.sup(['start', write('ok.json', [
    { name: 'api', depends_on: ['db'], env: { PORT: String(apiPort) } },
    { name: 'db', env: { PORT: String(port), NOT_READY_MS: String(notReadyMs) }, readiness: { http: '/ready', period: 100, failure_threshold: 1 } }
  ])])
  assert.equal(started.code, 0, started.stderr)
  // start may return at its deadline with api still starting on a loaded machine: wait for it.
  const rows = await waitForRows(home, (rs) => rs.some((r) => r.name === 'api' && r.status !== 'starting'), { what: 'api past starting' })
  const api = rows.find((r) => r.name === 'api')
  const db = rows.find((r) => r.name === 'db')
  assert.deepEqual([api?.status, db?.status, db?.ready], ['online', 'online', true])
  // api's process started only after db was ready, i.e. at least NOT_READY_MS after db's.
  assert.ok((db?.uptime ?? 0) - (api?.uptime ?? 0) >= notReadyMs, `db up ${db?.uptime} ms, api up ${api?.uptime} ms`)

  const unknown = await home.sup(['start', write('unknown.json', [{ name: 'web', depends_on: ['cache'], env: { PORT: '1' } }])])
  assert.equal(unknown.code, 1)
  assert.match(unknown.stderr, /^sup: app "web" depends on "cache", which is neither running nor started with it/)
  const circle = await home.sup(['start', write('circle.json', [{ name: 'x', depends_on: ['y'] }, { name: 'y', depends_on: ['x'] }])])
  assert.equal(circle.code, 1)
  assert.match(circle.stderr, /^sup: depends_on goes round in a circle: x -> y -> x/)
  assert.deepEqual((await home.ls()).map((r) => r.name).sort(), ['api', 'db'], 'nothing of a refused start exists')

  // A dependency that never gets ready: the dependent is registered, not started.
  const blocked = await home.sup(['start', write('blocked.json', [
    { name: 'late', env: { PORT: String(await freePort()), NOT_READY_MS: '600000' }, listen_timeout: 500, readiness: { http: '/ready', period: 100 } },
    { name: 'after', depends_on: ['late'], env: { PORT: String(await freePort()) } }
  ])])
  assert.equal(blocked.code, 1)
  assert.match(blocked.stderr, /sup: after was not started: what it depends on \(late\) was not ready in time/)
  const after = (await home.ls()).find((r) => r.name === 'after')
  assert.deepEqual([after?.status, after?.pid], ['stopped', null])
})

test('depends_on order holds when the apps come back: the restore after a daemon crash, and sup resurrect', async (t) => {
  const home = useSupHome(t)
  const [port, apiPort] = [await freePort(), await freePort()]
  const dir = mkdtempSync(join(tmpdir(), 'sup-probes-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'apps.json')
  const notReadyMs = 1500
  // The dependent first, in the file and so in the dump.
  writeFileSync(file, JSON.stringify({
    apps: [
      { name: 'api', script: join(APPS, 'probed-http.js'), kill_timeout: 1000, depends_on: ['db'], env: { PORT: String(apiPort) } },
      { name: 'db', script: join(APPS, 'probed-http.js'), kill_timeout: 1000, env: { PORT: String(port), NOT_READY_MS: String(notReadyMs) }, readiness: { http: '/ready', period: 100, failure_threshold: 1 } }
    ]
  }))
  assert.equal((await home.sup(['start', file])).code, 0)
  assert.equal((await home.sup(['save'])).code, 0)

  /** Both back and online, api's process started only once db was ready. @param {string} how */
  const checkOrder = async (how) => {
    const rows = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { timeout: 20_000, what: `both apps online after ${how}` })
    const api = rows.find((r) => r.name === 'api')
    const db = rows.find((r) => r.name === 'db')
    assert.equal(db?.ready, true)
    assert.ok((db?.uptime ?? 0) - (api?.uptime ?? 0) >= notReadyMs, `${how}: db up ${db?.uptime} ms, api up ${api?.uptime} ms`)
  }

  // kill -9: the next CLI call starts a daemon that restores both from its state file.
  const pid = /** @type {number} */ (readDaemonPid(home.paths))
  process.kill(pid, 'SIGKILL')
  await waitForExit([pid])
  const listed = await home.sup(['ls', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  assert.ok(JSON.parse(listed.stdout).every((/** @type {any} */ r) => r.restored === 'crashed'), listed.stdout)
  await checkOrder('a daemon crash')

  // A clean stop leaves the next daemon empty; resurrect brings back what save wrote.
  assert.equal((await home.sup(['kill'])).code, 0)
  const resurrected = await home.sup(['resurrect'])
  assert.equal(resurrected.code, 0, resurrected.stderr)
  await checkOrder('sup resurrect')
})
