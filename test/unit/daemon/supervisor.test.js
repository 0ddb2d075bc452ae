// @ts-check
// The registry and the fan-in, on fake processes and a fake clock: names are checked before
// anything starts, an app leaves the registry with its last worker, events reach the
// supervisor, workers stopped by hand are left alone by triggers, --update-env.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Supervisor } from '../../../daemon/supervisor.js'
import { appConfig, cooperative, drive, fakeEffects, silentLogger, tempLogs } from '../../helpers/fake-effects.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {Parameters<typeof fakeEffects>[0]} [options]
 */
function setup (t, options = cooperative) {
  const effects = fakeEffects(options)
  const supervisor = new Supervisor({ logsDir: tempLogs(t), logger: silentLogger, effects })
  return { effects, supervisor }
}

describe('Supervisor', () => {
  test('start checks every name first: one taken, nothing starts', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a' })], {}))
    const spawned = effects.spawned.length
    await assert.rejects(supervisor.start([appConfig({ name: 'b' }), appConfig({ name: 'a' })], {}), { code: 'SUP_ERR_APP_ALREADY_EXISTS' })
    await assert.rejects(supervisor.start([appConfig({ name: 'c' }), appConfig({ name: 'c' })], {}), { code: 'SUP_ERR_APP_ALREADY_EXISTS' })
    assert.equal(effects.spawned.length, spawned)
    assert.deepEqual([...supervisor.apps.keys()], ['a'])
  })

  test('ids go on across apps; a deleted app\'s are not reused while apps remain; targets resolve by name, id and "all"', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2 }), appConfig({ name: 'b', instances: 1 })], {}))
    assert.deepEqual(supervisor.list().map((r) => [r.name, r.id]), [['a', 0], ['a', 1], ['b', 2]])
    assert.deepEqual(supervisor.resolve(['b', '1']).map((w) => w.id), [2, 1])
    assert.deepEqual(supervisor.resolve(['all']).map((w) => w.id), [0, 1, 2])
    assert.throws(() => supervisor.resolve(['nope']), { code: 'SUP_ERR_APP_NOT_FOUND' })
    await drive(effects, supervisor.delete(['b']))
    await drive(effects, supervisor.start([appConfig({ name: 'b', instances: 1 })], {}))
    assert.deepEqual(supervisor.list().map((r) => r.id), [0, 1, 3])
  })

  test('as PM2: once every app is deleted, ids start from 0 again', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2 }), appConfig({ name: 'b', instances: 1 })], {}))
    await drive(effects, supervisor.delete(['all']))
    await drive(effects, supervisor.start([appConfig({ name: 'c', instances: 2 })], {}))
    assert.deepEqual(supervisor.list().map((r) => [r.name, r.id]), [['c', 0], ['c', 1]])
  })

  test('a reload keeps the ids, and does not move the ids later apps get', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', exec_mode: 'cluster', instances: 2 })], {}))
    await drive(effects, supervisor.reload({ targets: ['a'] }))
    await drive(effects, supervisor.start([appConfig({ name: 'b', instances: 1 })], {}))
    assert.deepEqual(supervisor.list().map((r) => [r.name, r.id, r.restarts]), [['a', 0, 1], ['a', 1, 1], ['b', 2, 0]])
  })

  test('start of what exists (PM2): a config file restarts its running apps with its settings and starts the rest', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2, env: { V: '1' } })], { SHELL: 'first' }))
    const rows = await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1, env: { V: '2' } }), appConfig({ name: 'b', instances: 1 })], { SHELL: 'second' }, { existing: 'restart' }))
    assert.deepEqual(rows.map((r) => [r.name, r.id, r.status, r.restarts]), [['a', 0, 'online', 1], ['b', 2, 'online', 0]])
    const a = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    assert.deepEqual([a.config.env, a.config.instances, a.shellEnv], [{ V: '2' }, 1, { SHELL: 'second' }])
    assert.equal(effects.spawned.filter((p) => p.config.name === 'a').at(-1)?.env.V, '2')
  })

  test('start of a stopped app of the same script revives it with the settings given; a running one is refused', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1, kill_timeout: 700, time: false })], { SHELL: 'first' }))
    await assert.rejects(supervisor.start([appConfig({ name: 'a', instances: 1, time: true })], {}, { given: ['time'] }), { code: 'SUP_ERR_APP_ALREADY_EXISTS' })
    await drive(effects, supervisor.stop(['a']))
    await assert.rejects(supervisor.start([appConfig({ name: 'a', instances: 1, script: '/srv/other.js' })], {}, { given: [] }), { code: 'SUP_ERR_APP_ALREADY_EXISTS' })
    const rows = await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1, time: true })], { SHELL: 'second' }, { given: ['time'] }))
    assert.deepEqual(rows.map((r) => [r.id, r.status, r.restarts]), [[0, 'online', 0]])
    const a = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    assert.deepEqual([a.config.time, a.config.kill_timeout, a.shellEnv], [true, 700, { SHELL: 'first' }], 'only what was given changes; the environment stays')
  })

  test('restart with settings to change: only those, never the size', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1 })], {}))
    await drive(effects, supervisor.restart(['a'], { update: { interpreter_args: ['--x'], instances: 3 } }))
    const a = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    assert.deepEqual([a.config.interpreter_args, a.config.name, a.workers.length], [['--x'], 'a', 1])
    assert.deepEqual(effects.spawned[effects.spawned.length - 1].config.interpreter_args, ['--x'])
  })

  test('restart --name renames one app in place; several apps or a taken name are refused', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1 }), appConfig({ name: 'b', instances: 1 })], {}))
    await drive(effects, supervisor.restart(['0'], { update: { name: 'c' } }))
    assert.deepEqual(supervisor.list().map((r) => [r.id, r.name]), [[0, 'c'], [1, 'b']])
    assert.deepEqual([...supervisor.apps.keys()], ['c', 'b'])
    await assert.rejects(supervisor.restart(['c'], { update: { name: 'b' } }), { code: 'SUP_ERR_APP_ALREADY_EXISTS' })
    await assert.rejects(supervisor.restart(['all'], { update: { name: 'd' } }), { code: 'SUP_ERR_APP_RENAME_MANY' })
    assert.deepEqual([...supervisor.apps.keys()], ['c', 'b'])
  })

  test('reload with a config file starts its apps that do not run', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1 })], {}))
    const { apps } = await drive(effects, supervisor.reload({ targets: ['a', 'b'], apps: [appConfig({ name: 'a', instances: 1 }), appConfig({ name: 'b', instances: 1 })] }))
    assert.deepEqual(apps.map((o) => [o.name, o.outcome]), [['b', 'started'], ['a', 'reloaded']])
    assert.deepEqual(supervisor.list().map((r) => [r.name, r.status, r.restarts]), [['a', 'online', 1], ['b', 'online', 0]])
  })

  test('the apps\' events come out of the supervisor: app.state, log, reload.progress', async (t) => {
    const { effects, supervisor } = setup(t)
    /** @type {string[]} */
    const seen = []
    for (const topic of ['app.state', 'log', 'reload.progress']) supervisor.on(topic, () => seen.push(topic))
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1 })], {}))
    assert.ok(seen.includes('app.state'))
    const app = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    app.logs.emit('line', { line: 'hello' })
    await drive(effects, supervisor.reload({ targets: ['a'] }))
    assert.ok(seen.includes('log'))
    assert.ok(seen.includes('reload.progress'))
  })

  test('deleting the last worker takes the app out of the registry; a new app of that name is another app', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2 })], {}))
    const first = supervisor.apps.get('a')
    await drive(effects, supervisor.delete(['0']))
    assert.equal(supervisor.apps.get('a'), first, 'one worker left: still there')
    const rows = await drive(effects, supervisor.delete(['a']))
    assert.deepEqual(rows.map((r) => r.status), ['deleted'])
    assert.equal(supervisor.apps.has('a'), false)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1 })], {}))
    assert.notEqual(supervisor.apps.get('a'), first)
  })

  test('a trigger restarts the workers, except those stopped by hand; a restart lifts the hold', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', exec_mode: 'fork', instances: 2 })], {}))
    await drive(effects, supervisor.stop(['0']))
    const app = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    const before = supervisor.list().map((r) => r.restarts)
    app.emit('trigger', 'cron_restart "* * * * *"')
    await effects.clock.advance(5000)
    const after = supervisor.list()
    assert.equal(after[0].status, 'stopped')
    assert.equal(after[0].restarts, before[0], 'the held worker was left alone')
    assert.equal(after[1].restarts, before[1] + 1)
    await drive(effects, supervisor.restart(['0']))
    assert.deepEqual(app.triggerable().map((w) => w.id), [0, 1])
  })

  test('a trigger of an app no longer registered does nothing', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', exec_mode: 'fork', instances: 1 })], {}))
    const app = /** @type {import('../../../daemon/app/app.js').App} */ (supervisor.apps.get('a'))
    await drive(effects, supervisor.delete(['a']))
    const spawned = effects.spawned.length
    app.emit('trigger', 'watch: x changed')
    await effects.clock.advance(5000)
    assert.equal(effects.spawned.length, spawned)
  })

  test('restart with a new shell environment: the named workers start with it', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 1, env: { PORT: '1' } })], { SHELL_VAR: 'old' }))
    await drive(effects, supervisor.restart(['a'], { shellEnv: { SHELL_VAR: 'new' } }))
    const last = effects.spawned[effects.spawned.length - 1]
    assert.equal(last.env.SHELL_VAR, 'new')
    assert.equal(last.env.PORT, '1')
    assert.equal(supervisor.apps.get('a')?.shellEnv.SHELL_VAR, 'new')
  })

  test('sup signal reaches the running workers through the effects, and answers with them', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2 }), appConfig({ name: 'b', instances: 1, autostart: false })], {}))
    const pids = supervisor.resolve(['a']).map((w) => w.state.pid)
    const rows = supervisor.signal(['all'], 'SIGUSR2')
    assert.deepEqual(rows.map((r) => r.name), ['a', 'a'], 'the stopped app has no process to signal')
    assert.deepEqual(effects.signals.filter(([, signal]) => signal === 'SIGUSR2'), pids.map((pid) => [pid, 'SIGUSR2']))
  })

  test('stopAll stops every worker of every app', async (t) => {
    const { effects, supervisor } = setup(t)
    await drive(effects, supervisor.start([appConfig({ name: 'a', instances: 2 }), appConfig({ name: 'b', exec_mode: 'fork', instances: 1 })], {}))
    await drive(effects, supervisor.stopAll())
    assert.deepEqual(supervisor.list().map((r) => r.status), ['stopped', 'stopped', 'stopped'])
    assert.ok(effects.spawned.every((p) => p.exited))
  })
})
