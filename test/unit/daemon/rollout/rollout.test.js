// @ts-check
// Rolling replacement on fake processes and a fake clock: a step that succeeds, the aborts
// (crash, not ready in time, stopped by someone else), the drain and the stop ladder that
// follows it, and the gate of wait_ready workers.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { App } from '../../../../daemon/app/app.js'
import { LOG_DEFAULTS } from '../../../../daemon/logs/defaults.js'
import { LogFiles } from '../../../../daemon/logs/files.js'
import { DEFAULT_LIMITS } from '../../../../daemon/rollout/plan.js'
import { rollWorkers } from '../../../../daemon/rollout/rollout.js'
import { appConfig, cooperative, drive, fakeEffects, silentLogger, soon, tempLogs } from '../../../helpers/fake-effects.js'

/**
 * @typedef {'listen' | 'crash' | 'silent' | 'deaf'} Newcomer how the processes spawned by the
 *   rollout behave: listen at once; exit with code 1 at once; never listen; listen, but ignore
 *   drain and SIGINT (only SIGKILL ends it)
 */

/**
 * An app of cooperative workers, started and online; then `newcomer` says how the processes
 * spawned afterwards behave.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [overrides]
 * @param {{ balance?: 'rr' | 'os' }} [options]
 */
async function runningApp (t, overrides = {}, { balance = 'rr' } = {}) {
  /** @type {{ newcomer: Newcomer }} */
  const script = { newcomer: 'listen' }
  /** @type {Set<import('../../../helpers/fake-effects.js').FakeProcess>} */
  const deaf = new Set()
  const effects = fakeEffects({
    balance,
    onSpawn (proc) {
      if (script.newcomer === 'crash') soon(() => proc.exit(1))
      else if (script.newcomer !== 'silent') {
        if (script.newcomer === 'deaf') deaf.add(proc)
        cooperative.onSpawn(proc)
      }
    },
    onSignal: (proc, signal) => { if (!deaf.has(proc)) cooperative.onSignal(proc, signal) },
    onMessage: (proc, message) => { if (!deaf.has(proc)) cooperative.onMessage(proc, message) }
  })
  let id = 0
  const app = new App({
    config: appConfig({ exec_mode: 'cluster', instances: 2, min_uptime: 500, listen_timeout: 3000, kill_timeout: 1000, ...overrides }),
    shellEnv: {},
    logging: { logsDir: tempLogs(t), files: new LogFiles({ logger: silentLogger }), defaults: LOG_DEFAULTS },
    logger: silentLogger,
    nextId: () => id++,
    effects
  })
  for (const worker of app.workers) worker.dispatch({ type: 'start' })
  await effects.clock.advance(0)
  // wait_ready workers count as online only once they say so.
  if (app.config.wait_ready) for (const proc of effects.spawned) proc.ready()
  assert.ok(app.workers.every((w) => w.state.status === 'online' && w.state.listening), 'every worker online and listening')
  /** @type {Record<string, unknown>[]} */
  const progress = []
  const roll = (/** @type {Partial<import('../../../../daemon/rollout/rollout.js').RolloutOptions>} */ options = {}) =>
    rollWorkers({ app, old: [...app.workers], instances: [0, 1], limits: DEFAULT_LIMITS, report: (p) => progress.push(p), ...options })
  return { app, effects, script, progress, roll }
}

describe('rollWorkers: outcomes', () => {
  /**
   * @typedef {object} OutcomeCase
   * @property {string} name
   * @property {Newcomer} newcomer
   * @property {'done' | 'aborted'} outcome
   * @property {RegExp | null} reason
   * @property {[number, number, number]} counts started, retired, failed
   * @property {string[]} phases the progress reported, in order
   * @property {'new' | 'old'} serving whose workers the app has afterwards
   */
  /** @type {OutcomeCase[]} */
  const cases = [
    {
      name: 'every new worker ready: each old one retired after its successor is ready',
      newcomer: 'listen',
      outcome: 'done',
      reason: null,
      counts: [2, 2, 0],
      phases: ['start', 'ready', 'start', 'ready', 'retired', 'retired'],
      serving: 'new'
    },
    {
      name: 'a new worker that exits before it is ready aborts; the old workers keep serving',
      newcomer: 'crash',
      outcome: 'aborted',
      reason: /^new worker 0 of api \(instance 0, pid 1002\) exited with code 1 before it was ready/,
      counts: [0, 0, 1],
      phases: ['start'],
      serving: 'old'
    },
    {
      name: 'a new worker that never listens aborts at listen_timeout',
      newcomer: 'silent',
      outcome: 'aborted',
      reason: /was not ready within listen_timeout \(3000 ms\): it never listened/,
      counts: [0, 0, 1],
      phases: ['start'],
      serving: 'old'
    }
  ]

  for (const c of cases) {
    test(c.name, async (t) => {
      const { app, effects, script, progress, roll } = await runningApp(t)
      const old = [...app.workers]
      const oldIds = old.map((w) => w.id)
      script.newcomer = c.newcomer
      const result = await drive(effects, roll())
      assert.equal(result.outcome, c.outcome)
      if (c.reason) assert.match(String(result.reason), c.reason)
      else assert.equal(result.reason, null)
      assert.deepEqual([result.started.length, result.retired.length, result.failed.length], c.counts)
      assert.deepEqual(progress.map((p) => p.phase), c.phases)
      // Either way the ids are those of before: a new worker takes over its predecessor's (PM2).
      assert.deepEqual(app.workers.map((w) => w.id), oldIds)
      if (c.serving === 'old') assert.deepEqual(app.workers, old)
      else assert.ok(app.workers.every((w) => !old.includes(w)), 'only new workers left')
      assert.deepEqual(app.workers.map((w) => w.state.status), ['online', 'online'])
      assert.equal(effects.clock.pending().count, 0, 'no timer left behind')
    })
  }

  test('never fewer ready workers than at the start: an old one goes only after a new one is ready', async (t) => {
    const { app, effects, roll } = await runningApp(t)
    let least = Infinity
    const count = () => { least = Math.min(least, app.workers.filter((w) => w.state.status === 'online' && w.state.listening).length) }
    for (const w of app.workers) w.on('change', count)
    app.on('app.state', count)
    const result = await drive(effects, roll())
    assert.equal(result.outcome, 'done')
    assert.equal(least, 2)
  })

  test('not ready 1 ms before listen_timeout is still waited for', async (t) => {
    const { app, effects, script, roll } = await runningApp(t)
    script.newcomer = 'silent'
    let settled = false
    const rolling = roll().finally(() => { settled = true })
    await effects.clock.advance(2999)
    assert.equal(settled, false)
    assert.equal(app.workers.length, 3, 'the new worker is still there, waited for')
    await drive(effects, rolling)
  })

  test('a new worker stopped by another command aborts the rollout', async (t) => {
    const { app, effects, script, roll } = await runningApp(t)
    script.newcomer = 'silent'
    const old = new Set(app.workers)
    const rolling = roll()
    await effects.clock.advance(100)
    const fresh = app.workers.find((w) => !old.has(w))
    assert.ok(fresh)
    fresh.dispatch({ type: 'stop' })
    const result = await drive(effects, rolling)
    assert.equal(result.outcome, 'aborted')
    assert.match(String(result.reason), /was stopped by another command/)
    assert.deepEqual(app.workers.map((w) => w.state.status), ['online', 'online'])
  })
})

describe('rollWorkers: retiring a worker', () => {
  /**
   * @typedef {object} RetireCase
   * @property {string} name
   * @property {Newcomer} behaviour how the worker to retire behaves
   * @property {Array<[number, string[]]>} timeline ms since the retire began → what the worker
   *   has been sent so far ('act:drain', 'SIGINT', 'SIGKILL')
   */
  /** @type {RetireCase[]} */
  const cases = [
    {
      name: 'a cooperative worker: drained first, then SIGINT, then gone',
      behaviour: 'listen',
      timeline: [[0, ['act:drain', 'SIGINT']]]
    },
    {
      name: 'a worker that answers neither: drain, SIGINT after kill_timeout, SIGKILL after another',
      behaviour: 'deaf',
      timeline: [[0, ['act:drain']], [999, ['act:drain']], [1000, ['act:drain', 'SIGINT']], [1999, ['act:drain', 'SIGINT']], [2000, ['act:drain', 'SIGINT', 'SIGKILL']]]
    }
  ]

  for (const c of cases) {
    test(c.name, async (t) => {
      const { app, effects, script, roll } = await runningApp(t, { instances: 1 })
      script.newcomer = c.behaviour
      // A worker spawned now behaves as the case says: add it, then retire it (a scale down).
      const extra = app.addWorker(1)
      extra.dispatch({ type: 'start' })
      await effects.clock.advance(0)
      assert.equal(extra.state.status, 'online')
      const proc = effects.spawned[effects.spawned.length - 1]
      const pid = /** @type {number} */ (proc.pid)
      const seen = () => [
        ...proc.acts().map((act) => `act:${act}`),
        ...effects.signals.filter(([p]) => p === pid).map(([, signal]) => signal)
      ]
      const retiring = roll({ old: [extra], instances: [] })
      let elapsed = 0
      for (const [at, expected] of c.timeline) {
        await effects.clock.advance(at - elapsed)
        elapsed = at
        assert.deepEqual(seen(), expected, `at ${at} ms`)
      }
      const result = await drive(effects, retiring)
      assert.equal(result.outcome, 'done')
      assert.deepEqual(result.retired.map((r) => r.id), [extra.id])
      assert.equal(extra.removed, true)
      assert.equal(app.workers.includes(extra), false)
    })
  }
})

describe('rollWorkers: the gate of wait_ready workers', () => {
  /** @type {Array<{ name: string, balance: 'rr' | 'os', acts: string[] }>} */
  const cases = [
    { name: 'balance rr: a new wait_ready worker is gated while others serve, opened once ready', balance: 'rr', acts: ['gate', 'open'] },
    { name: 'balance os: the primary hands out nothing, so there is no gate', balance: 'os', acts: [] }
  ]
  for (const c of cases) {
    test(c.name, async (t) => {
      const { app, effects, roll } = await runningApp(t, { wait_ready: true }, { balance: c.balance })
      // wait_ready workers become online on 'ready': the first two were started by hand.
      const old = new Set(app.workers)
      const rolling = roll({ old: [app.workers[0]], instances: [0] })
      await effects.clock.advance(10)
      const fresh = app.workers.find((w) => !old.has(w))
      assert.ok(fresh)
      const proc = effects.spawned[effects.spawned.length - 1]
      proc.ready()
      const result = await drive(effects, rolling)
      assert.equal(result.outcome, 'done')
      assert.deepEqual(proc.acts(), c.acts)
    })
  }
})
