// @ts-check
// Probes wired to workers, on fake processes and a fake clock: liveness restarts a worker that
// stops answering (counted, with the reason), readiness makes a worker online and gates it in
// cluster mode, and a rollout waits for the new worker's readiness.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { App } from '../../../../daemon/app/app.js'
import { LOG_DEFAULTS } from '../../../../daemon/logs/defaults.js'
import { LogFiles } from '../../../../daemon/logs/files.js'
import { DEFAULT_LIMITS } from '../../../../daemon/rollout/plan.js'
import { rollWorkers } from '../../../../daemon/rollout/rollout.js'
import { judge } from '../../../../daemon/probes/worker-probes.js'
import { appConfig, cooperative, drive, fakeEffects, silentLogger, soon, tempLogs } from '../../../helpers/fake-effects.js'

/** @typedef {import('../../../helpers/fake-effects.js').FakeProcess} FakeProcess */

const probe = (/** @type {Partial<import('../../../../ipc/app-config.js').ProbeConfig>} */ p = {}) => ({
  type: /** @type {const} */ ('http'), host: '127.0.0.1', port: null, path: '/healthz', status: null, command: [], initial_delay: 0, period: 1000, timeout: 500, failure_threshold: 3, success_threshold: 1, ...p
})

/**
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} overrides
 * @param {object} behaviour
 * @param {(proc: FakeProcess) => 'ok' | 'fail' | 'hang'} [behaviour.direct] how a check made from the daemon goes, per process
 * @param {(proc: FakeProcess) => number | null} [behaviour.agent] the status a worker's agent answers (null: it hangs)
 * @param {number} [behaviour.listenAfter] ms of fake time a process takes to listen (default: at once)
 */
function makeApp (t, overrides, { direct = () => 'ok', agent = () => 200, listenAfter } = {}) {
  /** @type {Map<number, FakeProcess>} */
  const byPid = new Map()
  const effects = fakeEffects({
    onSpawn: (proc) => {
      byPid.set(/** @type {number} */ (proc.pid), proc)
      if (listenAfter === undefined) cooperative.onSpawn(proc)
      else effects.clock.timers.setTimeout(() => proc.listen(), listenAfter)
    },
    onSignal: cooperative.onSignal,
    onMessage: (proc, message) => {
      const m = /** @type {any} */ (message)
      if (m?.act === 'probe') {
        const status = agent(proc)
        if (status !== null) soon(() => proc.events.emit('probed', { seq: m.seq, status }))
        return
      }
      cooperative.onMessage(proc, message)
    },
    onCheck: (target, { env }) => {
      const proc = [...byPid.values()].find((p) => p.env === env || (p.env.NODE_APP_INSTANCE === env.NODE_APP_INSTANCE && !p.exited))
      const verdict = proc ? direct(proc) : 'ok'
      if (verdict === 'hang') return new Promise(() => {})
      return Promise.resolve(verdict === 'ok' ? { ok: true } : { ok: false, reason: `GET ${target.path} answered 503` })
    }
  })
  let id = 0
  const app = new App({
    config: appConfig({ exec_mode: 'fork', instances: 1, min_uptime: 500, listen_timeout: 5000, kill_timeout: 1000, env: { PORT: '3000' }, ...overrides }),
    shellEnv: {},
    logging: { logsDir: tempLogs(t), files: new LogFiles({ logger: silentLogger }), defaults: LOG_DEFAULTS },
    logger: silentLogger,
    nextId: () => id++,
    effects
  })
  return { app, effects }
}

describe('liveness', () => {
  test('a worker that stops answering is restarted within period × failure_threshold, counted with the reason', async (t) => {
    const hung = new Set()
    const { app, effects } = makeApp(t, { liveness: probe() }, { direct: (proc) => hung.has(proc) ? 'hang' : 'ok' })
    const [worker] = app.workers
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(5000)
    assert.equal(worker.state.status, 'online')
    assert.equal(app.row(worker).liveness_restarts, 0)
    const first = effects.spawned[0]
    hung.add(first)
    const hungAt = effects.now()
    // The checks at +0 (already made? no: the next one), +1000, +2000 time out after 500 ms each.
    while (worker.state.pid === first.pid && effects.now() - hungAt < 10_000) await effects.clock.advance(100)
    const took = effects.now() - hungAt
    assert.ok(took <= 3 * 1000 + 500, `restarted ${took} ms after it hung`)
    await effects.clock.advance(100)
    assert.equal(effects.spawned.length, 2, 'a new process')
    assert.equal(worker.state.status, 'online')
    const row = app.row(worker)
    assert.equal(row.restarts, 1)
    assert.equal(row.liveness_restarts, 1)
    assert.match(row.last_restart?.reason ?? '', /^liveness probe failed: timed out after 500 ms$/)
    // The stop ladder's SIGINT, to the fork-mode worker's group.
    assert.deepEqual(effects.signals.find(([pid]) => Math.abs(pid) === first.pid), [-first.pid, 'SIGINT'])
    // The new process answers: no more restarts.
    await effects.clock.advance(10_000)
    assert.equal(effects.spawned.length, 2)
    assert.equal(app.row(worker).liveness_restarts, 1)
    // sup reset clears the count with the others.
    worker.dispatch({ type: 'reset' })
    assert.equal(app.row(worker).liveness_restarts, 0)
  })

  test('a failure in between resets the count: no restart', async (t) => {
    let n = 0
    const { app, effects } = makeApp(t, { liveness: probe() }, { direct: () => (n++ % 3 === 2 ? 'ok' : 'fail') })
    app.workers[0].dispatch({ type: 'start' })
    await effects.clock.advance(20_000)
    assert.equal(effects.spawned.length, 1)
    assert.equal(app.stores.probes.get(app.workers[0]).liveness?.last, 'GET /healthz answered 503')
  })

  test('probes stop with the worker', async (t) => {
    const { app, effects } = makeApp(t, { liveness: probe(), readiness: probe({ path: '/ready' }) })
    const [worker] = app.workers
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(3000)
    worker.dispatch({ type: 'stop' })
    await effects.clock.advance(2000)
    assert.equal(worker.state.status, 'stopped')
    assert.equal(effects.clock.pending().count, 0, 'no timer left')
  })
})

describe('readiness', () => {
  test('a worker is online only once its readiness probe passes, not when it listens', async (t) => {
    let ready = false
    const { app, effects } = makeApp(t, { readiness: probe({ path: '/ready' }) }, { direct: () => ready ? 'ok' : 'fail' })
    const [worker] = app.workers
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(4000)
    assert.equal(worker.state.listening, true)
    assert.equal(worker.state.status, 'starting', 'listening is not enough')
    assert.equal(app.row(worker).ready, false)
    ready = true
    await effects.clock.advance(1000)
    assert.equal(worker.state.status, 'online')
    assert.equal(app.row(worker).ready, true)
    // Failing later: still online (the process is fine), but not ready.
    ready = false
    await effects.clock.advance(3000)
    assert.equal(worker.state.status, 'online')
    assert.equal(app.row(worker).ready, false)
  })

  test('a worker that listens is checked at once, not a whole period later', async (t) => {
    /** @type {Set<FakeProcess>} */
    const listened = new Set()
    const { app, effects } = makeApp(t, { readiness: probe({ path: '/ready', period: 10_000 }) }, {
      listenAfter: 300,
      direct: (proc) => listened.has(proc) ? 'ok' : 'fail'
    })
    effects.clock.timers.setTimeout(() => listened.add(effects.spawned[0]), 299)
    const [worker] = app.workers
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(250)
    assert.equal(app.stores.probes.get(worker).readiness?.checks, 1, 'the first check, at the start, failed')
    assert.equal(worker.state.status, 'starting')
    await effects.clock.advance(100)
    assert.equal(worker.state.status, 'online', 'the check made when it listened passed')
  })

  test('without a probe, ready is null and listening makes it online', async (t) => {
    const { app, effects } = makeApp(t, {})
    app.workers[0].dispatch({ type: 'start' })
    await effects.clock.advance(100)
    assert.equal(app.workers[0].state.status, 'online')
    assert.equal(app.row(app.workers[0]).ready, null)
  })

  test('cluster mode: checked through the agent, and an unready worker is gated while another serves', async (t) => {
    /** @type {Set<number>} */
    const unready = new Set()
    const { app, effects } = makeApp(t, { exec_mode: 'cluster', instances: 2, readiness: probe({ path: '/ready' }) }, {
      direct: () => { throw new Error('cluster workers are checked through the agent') },
      agent: (proc) => unready.has(/** @type {number} */ (proc.pid)) ? 503 : 200
    })
    for (const worker of app.workers) worker.dispatch({ type: 'start' })
    await effects.clock.advance(100)
    assert.deepEqual(app.workers.map((w) => w.state.status), ['online', 'online'])
    const [a, b] = effects.spawned
    assert.ok(a.sent.some((m) => /** @type {any} */ (m).act === 'probe' && /** @type {any} */ (m).path === '/ready'))
    const gates = (/** @type {FakeProcess} */ p, from = 0) => p.acts().filter((x) => x === 'gate' || x === 'open').slice(from)
    // Whichever came online second was gated until its own probe passed.
    const before = { a: gates(a).length, b: gates(b).length }
    assert.deepEqual([...gates(a), ...gates(b)], ['gate', 'open'])
    unready.add(/** @type {number} */ (b.pid))
    await effects.clock.advance(3000)
    assert.equal(app.row(app.workers[1]).ready, false)
    assert.deepEqual(gates(b, before.b), ['gate'])
    assert.deepEqual(gates(a, before.a), [])
    // Both unready: nobody to hand connections to, so the gate opens rather than bounce them.
    unready.add(/** @type {number} */ (a.pid))
    await effects.clock.advance(3000)
    assert.deepEqual(gates(b, before.b), ['gate', 'open'])
    assert.deepEqual(gates(a, before.a), [])
    unready.clear()
    await effects.clock.advance(1000)
    assert.deepEqual(app.workers.map((w) => app.row(w).ready), [true, true])
  })

  test('a rollout retires the old worker only once the new one passes its readiness probe', async (t) => {
    let newReady = false
    const { app, effects } = makeApp(t, { exec_mode: 'cluster', instances: 1, readiness: probe({ path: '/ready', period: 500 }) }, {
      agent: (proc) => proc === effects.spawned[0] || newReady ? 200 : 503
    })
    app.workers[0].dispatch({ type: 'start' })
    await effects.clock.advance(100)
    const old = app.workers[0]
    assert.equal(old.state.status, 'online')
    const done = rollWorkers({ app, old: [old], instances: [0], limits: DEFAULT_LIMITS })
    await effects.clock.advance(3000)
    const fresh = effects.spawned[1]
    assert.equal(app.workers.length, 2)
    assert.equal(old.state.status, 'online', 'the old worker still serves')
    assert.ok(fresh.acts().includes('gate'), 'the new one is gated while it is not ready')
    newReady = true
    const result = await drive(effects, done)
    assert.equal(result.outcome, 'done')
    assert.equal(old.removed, true)
    assert.ok(fresh.acts().includes('open'))
  })

  test('a rollout whose new worker never passes aborts at listen_timeout, naming the probe', async (t) => {
    const { app, effects } = makeApp(t, { exec_mode: 'cluster', instances: 1, listen_timeout: 2000, readiness: probe({ path: '/ready', period: 500 }) }, {
      agent: (proc) => proc === effects.spawned[0] ? 200 : 503
    })
    app.workers[0].dispatch({ type: 'start' })
    await effects.clock.advance(100)
    const result = await drive(effects, rollWorkers({ app, old: [app.workers[0]], instances: [0], limits: DEFAULT_LIMITS }))
    assert.equal(result.outcome, 'aborted')
    assert.match(result.reason ?? '', /never passed its readiness probe \(last: GET \/ready answered 503\)/)
    assert.equal(app.workers.length, 1)
    assert.equal(app.workers[0].state.status, 'online')
  })
})

test('judge: the agent\'s answers as verdicts', () => {
  assert.deepEqual(judge(probe(), { status: 200 }), { ok: true })
  assert.deepEqual(judge(probe(), { status: 302 }), { ok: true })
  assert.deepEqual(judge(probe(), { status: 503 }), { ok: false, reason: 'GET /healthz answered 503' })
  assert.deepEqual(judge(probe({ status: 204 }), { status: 200 }), { ok: false, reason: 'GET /healthz answered 200, expected 204' })
  assert.deepEqual(judge(probe({ type: 'tcp' }), { status: 0 }), { ok: true })
  assert.deepEqual(judge(probe(), { error: 'no HTTP server listening in the worker' }), { ok: false, reason: 'no HTTP server listening in the worker' })
})
