// @ts-check
// Persistence over a supervisor of fake processes: a burst of changes costs one write and
// idle() waits for it; shutdown writes the apps as they were before they were stopped; a
// resurrect restores what is not running yet, once.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { Persistence } from '../../../../daemon/dump/persistence.js'
import { Supervisor } from '../../../../daemon/supervisor.js'
import { appConfig, cooperative, drive as driveClock, fakeEffects, silentLogger, tempLogs } from '../../../helpers/fake-effects.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {string} [file] the state file, when a second daemon reads the first one's (the
 *   snapshot of `sup save` is dump.json beside it)
 */
async function setup (t, file) {
  const dir = tempLogs(t)
  const saveFile = file ? join(file, '..', 'dump.json') : join(dir, 'dump.json')
  const effects = fakeEffects(cooperative)
  const supervisor = new Supervisor({ logsDir: dir, logger: silentLogger, effects })
  const persistence = new Persistence({ file: file ?? join(dir, 'state.json'), saveFile, supervisor, logger: silentLogger, version: '0.0.0-test', now: effects.now })
  /** @type {string[]} */
  const writes = []
  const write = persistence.write.bind(persistence)
  persistence.write = (apps, reason, state, ...rest) => {
    writes.push(reason)
    return write(apps, reason, state, ...rest)
  }
  // As the daemon does: what Persistence proposes, the Supervisor carries out.
  const proposal = await persistence.open()
  if (proposal) await supervisor.restore(proposal)
  /** `sup resurrect`, as its handler carries it out. @param {Record<string, string>} shellEnv */
  const resurrect = async (shellEnv) => {
    const { restore, ...found } = await persistence.proposeResurrect(shellEnv)
    return { ...found, ...await supervisor.resurrect(restore) }
  }
  const drive = (/** @type {Promise<any>} */ promise) => driveClock(effects, promise)
  const read = () => JSON.parse(readFileSync(persistence.file, 'utf8'))
  return { supervisor, persistence, effects, writes, drive, read, resurrect }
}

test('a burst of changes is written at most twice, and idle() resolves once it is on disk', async (t) => {
  const { supervisor, persistence, writes, drive, read } = await setup(t)
  // 4 workers: 8 state changes (starting, online) within a few ticks.
  await drive(supervisor.start([appConfig({ name: 'a', instances: 4 })], {}))
  await persistence.idle()
  assert.ok(writes.length >= 1 && writes.length <= 2, `${writes.length} writes`)
  const dump = read()
  assert.deepEqual(dump.apps.map((/** @type {any} */ a) => [a.config.name, a.workers.length]), [['a', 4]])
  assert.equal(dump.daemon.state, 'running')
})

test('shutdown writes the apps as they ran before the stop, marked stopped', async (t) => {
  const { supervisor, persistence, drive, read } = await setup(t)
  await drive(supervisor.start([appConfig({ name: 'a', instances: 2 })], {}))
  await persistence.idle()
  const writeDump = persistence.beginShutdown()
  await drive(supervisor.stopAll())
  await writeDump()
  const dump = read()
  assert.equal(dump.daemon.state, 'stopped')
  assert.deepEqual(dump.apps[0].workers.map((/** @type {any} */ w) => w.run), [true, true], 'they were running when the shutdown began')
  await assert.rejects(persistence.save({}), { code: 'SUP_ERR_DAEMON_SHUTTING_DOWN' })
})

test('after a clean stop the next daemon starts empty; resurrect brings the saved apps back, once', async (t) => {
  const before = await setup(t)
  await before.drive(before.supervisor.start([appConfig({ name: 'a', instances: 2 }), appConfig({ name: 'b', instances: 1 })], {}))
  await before.persistence.idle()
  await before.drive(before.persistence.save({}))
  const writeDump = before.persistence.beginShutdown()
  await before.drive(before.supervisor.stopAll())
  await writeDump()

  const { supervisor, persistence, drive, resurrect } = await setup(t, before.persistence.file)
  assert.deepEqual(supervisor.list(), [])
  assert.deepEqual(persistence.status().parked, ['a', 'b'])
  // A listing is told the parked apps once; status() without unreported always has them.
  assert.deepEqual(persistence.status({ unreported: true }).parked, ['a', 'b'])
  assert.deepEqual(persistence.status({ unreported: true }).parked, [])
  assert.deepEqual(persistence.status().parked, ['a', 'b'])
  const first = await drive(resurrect({}))
  assert.deepEqual(first.apps, ['a', 'b'])
  assert.deepEqual(supervisor.list().map((r) => `${r.name}:${r.status}`), ['a:online', 'a:online', 'b:online'])
  assert.ok(supervisor.apps.get('a')?.restored, 'marked as restored')
  const second = await drive(resurrect({}))
  assert.deepEqual(second.apps, [])
  assert.equal(supervisor.list().length, 3)
  // The second daemon writes into the first one's folder: let its last write land before the
  // folder is removed (ENOTEMPTY on Node 22 otherwise, when a write lands mid-removal).
  await persistence.idle()
})
