// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { SupError } from '../../../../ipc/errors.js'
import { DUMP_FORMAT, buildDump, parseDump, pickConfig, wantsToRun, workersToSave } from '../../../../daemon/dump/format.js'

/** @param {Record<string, unknown>} [over] */
const config = (over = {}) => /** @type {import('../../../../ipc/app-config.js').AppConfig} */ ({ ...APP_DEFAULTS, name: 'api', script: '/srv/api.js', cwd: '/srv', ...over })
const daemon = /** @type {const} */ ({ pid: 100, start_time: '5000', boot_id: 'b-1', state: 'running' })
/** @param {unknown} doc */
const text = (doc) => JSON.stringify(doc)

describe('wantsToRun', () => {
  /** @type {Array<[string, string | null, boolean | null]>} [status, then, expected] */
  const rows = [
    ['starting', null, true],
    ['online', null, true],
    ['waiting', null, true],
    ['errored', null, true],
    ['stopped', null, false],
    ['stopping', null, false],
    ['stopping', 'start', true],
    ['stopping', 'remove', null],
    ['online', 'remove', null]
  ]
  for (const [status, then, expected] of rows) {
    test(`${status}${then ? ` then ${then}` : ''} -> ${expected}`, () => {
      assert.equal(wantsToRun(/** @type {any} */ ({ status, afterStop: then })), expected)
    })
  }
})

describe('workersToSave', () => {
  /** @param {number} instance @param {string} status @param {number | null} pid @param {string | null} [then] */
  const w = (instance, status, pid, then = null) => ({ instance, state: /** @type {any} */ ({ status, pid, afterStop: then }) })
  /** @type {Array<[string, ReturnType<typeof w>[], Array<[number, boolean, number | null]>]>} [name, workers, expected instance/run/pid] */
  const rows = [
    ['one entry per worker, by instance', [w(1, 'online', 11), w(0, 'stopped', null)], [[0, false, null], [1, true, 11]]],
    ['a worker being deleted is left out', [w(0, 'online', 10), w(1, 'stopping', 11, 'remove')], [[0, true, 10]]],
    ['a reload surge: old and new share an instance, saved once (the first)', [w(0, 'online', 10), w(1, 'online', 11), w(0, 'starting', 12)], [[0, true, 10], [1, true, 11]]],
    ['a reload retiring the old one: the new one is saved', [w(0, 'stopping', 10, 'remove'), w(0, 'online', 12)], [[0, true, 12]]],
    ['a stopped duplicate does not hide a running one', [w(0, 'stopped', null), w(0, 'starting', 12)], [[0, true, 12]]]
  ]
  for (const [name, workers, expected] of rows) {
    test(name, () => assert.deepEqual(workersToSave(workers).map((x) => [x.instance, x.run, x.pid]), expected))
  }
})

describe('buildDump', () => {
  test('writes the config keys of the schema only, instances from the workers', () => {
    const doc = buildDump({
      apps: [{ config: /** @type {any} */ ({ ...config({ instances: 4 }), shellEnv: { SECRET: 'x' }, pid: 3 }), workers: [{ instance: 0, run: true, pid: 7, start_time: '9' }] }],
      daemon,
      version: '0.1.0',
      reason: 'change',
      now: Date.UTC(2030, 0, 1)
    })
    assert.equal(doc.sup_dump, DUMP_FORMAT)
    assert.equal(doc.saved_at, '2030-01-01T00:00:00.000Z')
    assert.deepEqual(doc.daemon, daemon)
    assert.equal(doc.apps[0].config.instances, 1)
    assert.equal(/** @type {any} */ (doc.apps[0].config).shellEnv, undefined)
    assert.equal(/** @type {any} */ (doc.apps[0].config).pid, undefined)
    assert.deepEqual(doc.apps[0].workers, [{ instance: 0, run: true, pid: 7, start_time: '9' }])
    assert.equal('parked' in doc.apps[0], false)
  })

  test('marks parked apps', () => {
    const doc = buildDump({ apps: [{ config: config(), workers: [{ instance: 0, run: true, pid: null, start_time: null }], parked: true }], daemon, version: 'x', reason: 'r', now: 0 })
    assert.equal(doc.apps[0].parked, true)
  })

  test('pickConfig keeps an app env and nothing outside the schema', () => {
    assert.deepEqual(pickConfig({ ...config({ env: { PORT: '1' } }), extra: 1 }), config({ env: { PORT: '1' } }))
  })
})

describe('parseDump', () => {
  const good = { sup_dump: 1, version: '0.1.0', saved_at: 'then', reason: 'change', daemon, apps: [{ config: config({ instances: 2 }), workers: [{ instance: 1, run: false, pid: 8, start_time: '80' }, { instance: 0, run: true, pid: 7, start_time: '70' }] }] }

  test('round-trips what buildDump writes', () => {
    const doc = buildDump({ apps: good.apps, daemon, version: '0.1.0', reason: 'save', now: 0 })
    const { dump, skipped } = parseDump(JSON.stringify(doc), 'dump.json')
    assert.deepEqual(skipped, [])
    assert.deepEqual(dump.apps[0].workers.map((w) => w.instance), [0, 1], 'sorted by instance')
    assert.equal(dump.apps[0].config.name, 'api')
    assert.deepEqual(dump.daemon, daemon)
  })

  /** @type {Array<[string, string, RegExp]>} [name, text, reason] */
  const corrupt = [
    ['an empty file', '', /the file is empty/],
    ['a truncated file', text(good).slice(0, 60), /not JSON .* truncated/],
    ['not an object', '[1, 2]', /not a sup dump/],
    ['another program\'s JSON', text({ apps: [] }), /not a sup dump/],
    ['a newer format', text({ ...good, sup_dump: 2 }), /format 2, this sup reads format 1/],
    ['apps not a list', text({ ...good, apps: {} }), /"apps" is not a list/],
    ['no daemon', text({ ...good, daemon: undefined }), /"daemon" is missing/],
    ['a daemon without a state', text({ ...good, daemon: { pid: 1 } }), /"daemon" is missing or malformed/]
  ]
  for (const [name, input, reason] of corrupt) {
    test(`${name} is SUP_ERR_DUMP_CORRUPT`, () => {
      assert.throws(() => parseDump(input, '/h/dump.json'), (err) => {
        assert.ok(err instanceof SupError)
        assert.equal(err.code, 'SUP_ERR_DUMP_CORRUPT')
        assert.equal(err.details.file, '/h/dump.json')
        assert.match(String(err.details.reason), reason)
        return true
      })
    })
  }

  /** @type {Array<[string, unknown, RegExp]>} [name, app entry, why it is skipped] */
  const badApps = [
    ['no config', { workers: [] }, /no "config" object/],
    ['a bad name', { config: config({ name: 'a b' }) }, /config.name has an invalid format/],
    ['a bad type', { config: config({ instances: 'two' }) }, /config.instances must be a number/],
    ['no script', { config: { name: 'x', cwd: '/' } }, /config.script is required/],
    ['an empty worker list', { config: config(), workers: [] }, /1 to 1024 entries/],
    ['a worker without run', { config: config(), workers: [{ instance: 0 }] }, /boolean "run"/]
  ]
  for (const [name, entry, why] of badApps) {
    test(`an app with ${name} is left out, the others kept`, () => {
      const { dump, skipped } = parseDump(text({ ...good, apps: [entry, { config: config({ name: 'ok' }) }] }), 'd')
      assert.deepEqual(dump.apps.map((a) => a.config.name), ['ok'])
      assert.equal(skipped.length, 1)
      assert.match(skipped[0], why)
    })
  }

  test('a name listed twice keeps the first', () => {
    const { dump, skipped } = parseDump(text({ ...good, apps: [{ config: config({ instances: 2 }) }, { config: config() }] }), 'd')
    assert.equal(dump.apps.length, 1)
    assert.equal(dump.apps[0].workers.length, 2)
    assert.match(skipped[0], /app api: listed twice/)
  })

  test('keys missing from an older dump take their defaults; unknown keys are dropped', () => {
    const { kill_timeout: _, ...older } = config()
    const { dump } = parseDump(text({ ...good, apps: [{ config: { ...older, from_the_future: true } }] }), 'd')
    assert.equal(dump.apps[0].config.kill_timeout, APP_DEFAULTS.kill_timeout)
    assert.equal('from_the_future' in dump.apps[0].config, false)
  })

  test('no workers list means every instance runs; bad pids are dropped, not trusted', () => {
    const { dump } = parseDump(text({ ...good, apps: [{ config: config({ instances: 2 }) }, { config: config({ name: 'b' }), workers: [{ instance: 0, run: true, pid: -4, start_time: '1' }] }] }), 'd')
    assert.deepEqual(dump.apps[0].workers, [{ instance: 0, run: true, pid: null, start_time: null }, { instance: 1, run: true, pid: null, start_time: null }])
    assert.deepEqual(dump.apps[1].workers, [{ instance: 0, run: true, pid: null, start_time: null }])
  })
})
