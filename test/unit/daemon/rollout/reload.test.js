// @ts-check
// reload, scale and replace on an App with fake processes and a fake clock: the lock, the
// config swap (only once the rollout is done), the fork-mode fallback, the last outcome, and
// a replacement counted as a restart.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Supervisor } from '../../../../daemon/supervisor.js'
import { appConfig, cooperative, drive as driveClock, fakeEffects, silentLogger, soon, tempLogs } from '../../../helpers/fake-effects.js'

/**
 * A supervisor running app "api" (cluster, 2 workers); processes spawned once `crash` is set
 * exit with code 1 at once.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [overrides]
 */
async function setup (t, overrides = {}) {
  const script = { crash: false }
  const effects = fakeEffects({
    ...cooperative,
    onSpawn: (proc) => script.crash ? soon(() => proc.exit(1)) : cooperative.onSpawn(proc)
  })
  const supervisor = new Supervisor({ logsDir: tempLogs(t), logger: silentLogger, effects })
  const drive = (/** @type {Promise<any>} */ promise) => driveClock(effects, promise)
  await drive(supervisor.start([appConfig({ min_uptime: 200, listen_timeout: 2000, kill_timeout: 500, ...overrides })], {}))
  const app = /** @type {import('../../../../daemon/app/app.js').App} */ (supervisor.apps.get('api'))
  return { supervisor, effects, script, drive, app }
}

describe('the rollout lock', () => {
  /** @type {Array<{ name: string, second: (s: Supervisor) => Promise<unknown>, op: string }>} */
  const cases = [
    { name: 'a second reload while one runs is refused', second: (s) => s.reload({ targets: ['api'] }), op: 'reload' },
    { name: 'a scale while a reload runs is refused', second: (s) => s.scale('api', '3'), op: 'reload' },
    { name: 'a replace while a reload runs is refused', second: (s) => s.replaceWorker(s.resolve(['api'])[0]), op: 'reload' }
  ]
  for (const c of cases) {
    test(c.name, async (t) => {
      const { supervisor, drive, app } = await setup(t)
      const first = supervisor.reload({ targets: ['api'] })
      assert.equal(app.rollout, 'reload')
      await assert.rejects(c.second(supervisor), { code: 'SUP_ERR_RELOAD_IN_PROGRESS', details: { name: 'api', op: c.op } })
      const { apps } = await drive(first)
      assert.equal(apps[0].outcome, 'reloaded')
      assert.equal(app.rollout, null, 'released once done')
    })
  }

  test('released after an aborted reload too', async (t) => {
    const { supervisor, drive, app, script } = await setup(t)
    script.crash = true
    const { apps } = await drive(supervisor.reload({ targets: ['api'] }))
    assert.equal(apps[0].outcome, 'aborted')
    assert.equal(apps[0].code, 'SUP_ERR_RELOAD_ABORTED')
    assert.equal(app.rollout, null)
    script.crash = false
    const again = await drive(supervisor.reload({ targets: ['api'] }))
    assert.equal(again.apps[0].outcome, 'reloaded')
  })

  test('a trigger while a reload runs is skipped, not queued', async (t) => {
    const { supervisor, drive, app, effects } = await setup(t)
    const first = supervisor.reload({ targets: ['api'] })
    app.emit('trigger', 'cron_restart "* * * * *"')
    await drive(first)
    const spawned = effects.spawned.length
    await effects.clock.advance(5000)
    assert.equal(effects.spawned.length, spawned)
  })
})

describe('the config swap', () => {
  test('reload with a new config: the app takes it once every new worker is ready', async (t) => {
    const { supervisor, drive, app, effects } = await setup(t)
    const next = appConfig({ min_uptime: 200, listen_timeout: 2000, kill_timeout: 500, env: { VERSION: '2' } })
    // What the app's config is when the first new worker is spawned (with the new config).
    /** @type {Array<{ env: Record<string, string>, appEnv: Record<string, string> }>} */
    const atSpawn = []
    const spawn = effects.spawn
    effects.spawn = (config, env, ...rest) => {
      atSpawn.push({ env, appEnv: app.config.env })
      return spawn(config, env, ...rest)
    }
    await drive(supervisor.reload({ targets: ['api'], apps: [next] }))
    assert.equal(atSpawn[0].env.VERSION, '2')
    assert.deepEqual(atSpawn[0].appEnv, {}, 'not yet: the old workers still serve the old config')
    assert.deepEqual(app.config.env, { VERSION: '2' })
    assert.ok(app.workers.every((w) => w.revision === app.revision), 'the new workers now run with the app\'s own config')
    assert.equal(effects.spawned[effects.spawned.length - 1].env.VERSION, '2')
  })

  test('an aborted reload with a new config leaves the old one', async (t) => {
    const { supervisor, drive, app, script } = await setup(t)
    const old = app.config
    script.crash = true
    const { apps } = await drive(supervisor.reload({ targets: ['api'], apps: [appConfig({ env: { VERSION: '2' } })] }))
    assert.equal(apps[0].outcome, 'aborted')
    assert.equal(app.config, old)
  })

  test('fork mode: reload is a restart, and says so', async (t) => {
    const { supervisor, drive, app } = await setup(t, { exec_mode: 'fork' })
    const before = app.workers.map((w) => w.state.restarts)
    const { apps } = await drive(supervisor.reload({ targets: ['api'] }))
    assert.equal(apps[0].outcome, 'restarted')
    assert.equal(apps[0].strategy, 'restart')
    assert.deepEqual(app.workers.map((w) => w.state.restarts), before.map((n) => n + 1))
  })

  test('scale: the config follows the new size; the last outcome is kept for describe', async (t) => {
    const { supervisor, drive, app } = await setup(t)
    const up = await drive(supervisor.scale('api', '+2'))
    assert.deepEqual([up.outcome, up.from, up.to], ['scaled', 2, 4])
    assert.equal(app.config.instances, 4)
    const down = await drive(supervisor.scale('api', '1'))
    assert.deepEqual([down.outcome, down.to], ['scaled', 1])
    assert.deepEqual(app.workers.map((w) => w.instance), [0])
    assert.equal(app.config.instances, 1)
    assert.equal(supervisor.describe('api').last_rollout?.op, 'scale')
    await assert.rejects(supervisor.scale('api', '0'), { code: 'SUP_ERR_APP_SCALE_INVALID' })
    assert.equal(app.rollout, null)
  })
})

describe('a reload keeps ids and counts a restart (PM2)', () => {
  test('each new worker takes the id of the old one on its instance, and its count plus one', async (t) => {
    const { supervisor, drive, app } = await setup(t)
    app.workers[1].dispatch({ type: 'carry-restarts', restarts: 3 })
    const before = app.workers.map((w) => ({ worker: w, id: w.id, instance: w.instance }))
    const reloading = supervisor.reload({ targets: ['api'] })
    // While the first successor comes up, its predecessor holds a spare id: ids stay unique.
    const during = supervisor.list().map((r) => r.id)
    assert.equal(new Set(during).size, during.length, `unique ids during the reload (${during})`)
    await drive(reloading)
    assert.deepEqual(app.workers.map((w) => [w.id, w.instance, w.state.restarts]), [[before[0].id, 0, 1], [before[1].id, 1, 4]])
    assert.ok(app.workers.every((w) => !before.some((b) => b.worker === w)), 'new workers')
  })

  test('an aborted reload gives the old worker its id back', async (t) => {
    const { supervisor, drive, app, script } = await setup(t)
    const before = app.workers.map((w) => [w.id, w.instance])
    script.crash = true
    const { apps } = await drive(supervisor.reload({ targets: ['api'] }))
    assert.equal(apps[0].outcome, 'aborted')
    assert.deepEqual(app.workers.map((w) => [w.id, w.instance]), before)
    assert.deepEqual(app.workers.map((w) => w.state.restarts), [0, 0])
  })
})

describe('replaceWorker counts a restart', () => {
  /** @type {Array<{ name: string, mode: 'cluster' | 'fork', outcome: string }>} */
  const cases = [
    { name: 'cluster mode: the successor takes over the count, plus one', mode: 'cluster', outcome: 'reloaded' },
    { name: 'fork mode: a restart, counted by the lifecycle', mode: 'fork', outcome: 'restarted' }
  ]
  for (const c of cases) {
    test(c.name, async (t) => {
      const { supervisor, drive, app } = await setup(t, { exec_mode: c.mode })
      const [worker] = app.workers
      worker.dispatch({ type: 'carry-restarts', restarts: 4 })
      const id = worker.id
      const outcome = await drive(supervisor.replaceWorker(worker))
      assert.equal(outcome.outcome, c.outcome)
      const successor = app.workers.find((w) => w.instance === 0)
      assert.equal(successor?.state.restarts, 5)
      assert.equal(successor?.id, id, 'and the id')
    })
  }
})
