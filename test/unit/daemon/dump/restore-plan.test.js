// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { classifyPrevious, loginEnv, planRestore, recordedWorkers } from '../../../../daemon/dump/restore-plan.js'

/**
 * @param {string} name
 * @param {{ parked?: boolean, mode?: 'fork' | 'cluster', pids?: Array<number | null> }} [options]
 * @returns {import('../../../../daemon/dump/format.js').DumpApp}
 */
function app (name, { parked = false, mode = 'fork', pids = [null] } = {}) {
  return {
    config: /** @type {any} */ ({ ...APP_DEFAULTS, name, script: `/srv/${name}.js`, cwd: '/srv', exec_mode: mode, instances: pids.length, kill_timeout: 700 }),
    workers: pids.map((pid, instance) => ({ instance, run: true, pid, start_time: pid === null ? null : `t${pid}` })),
    ...(parked ? { parked: true } : {})
  }
}

describe('classifyPrevious', () => {
  /** @type {Array<[string, 'running' | 'stopped', string | null, string | null, boolean, string]>} [name, state, recorded boot, current boot, alive, expected] */
  const rows = [
    ['a clean stop', 'stopped', 'b1', 'b1', false, 'stopped'],
    ['a clean stop before a reboot', 'stopped', 'b1', 'b2', false, 'stopped'],
    ['running, and gone', 'running', 'b1', 'b1', false, 'crashed'],
    ['running, on another boot', 'running', 'b1', 'b2', false, 'rebooted'],
    ['running, another boot, and its pid+start time taken (cannot be it)', 'running', 'b1', 'b2', true, 'rebooted'],
    ['running, and still alive', 'running', 'b1', 'b1', true, 'alive'],
    ['running, no boot ids (not Linux), gone', 'running', null, null, false, 'crashed'],
    ['running, boot id only on one side, gone', 'running', null, 'b2', false, 'crashed']
  ]
  for (const [name, state, recordedBoot, bootId, previousAlive, expected] of rows) {
    test(`${name} -> ${expected}`, () => {
      assert.equal(classifyPrevious({ pid: 10, start_time: 's', boot_id: recordedBoot, state }, { bootId, previousAlive }), expected)
    })
  }
})

describe('planRestore', () => {
  const a = app('a')
  const b = app('b')
  const p = app('p', { parked: true })
  /** @typedef {{ restore: string[], park: string[], skip: string[] }} Names */
  /** @type {Array<[string, import('../../../../daemon/dump/restore-plan.js').RestoreMode, string[], Names]>} [name, mode, live, expected] */
  const rows = [
    ['after a clean stop nothing starts, everything is kept for resurrect', 'stopped', [], { restore: [], park: ['a', 'b', 'p'], skip: [] }],
    ['after a crash what ran is restored, parked stays parked', 'crashed', [], { restore: ['a', 'b'], park: ['p'], skip: [] }],
    ['after a reboot the same', 'rebooted', [], { restore: ['a', 'b'], park: ['p'], skip: [] }],
    ['resurrect starts everything, parked included', 'resurrect', [], { restore: ['a', 'b', 'p'], park: [], skip: [] }],
    ['resurrect never starts an app twice', 'resurrect', ['a', 'p'], { restore: ['b'], park: [], skip: ['a', 'p'] }],
    ['resurrect with everything there starts nothing', 'resurrect', ['a', 'b', 'p'], { restore: [], park: [], skip: ['a', 'b', 'p'] }],
    ['a live app is not parked either', 'stopped', ['b'], { restore: [], park: ['a', 'p'], skip: ['b'] }]
  ]
  for (const [name, mode, live, expected] of rows) {
    test(name, () => {
      const plan = planRestore([a, b, p], { mode, live: new Set(live) })
      assert.deepEqual({
        restore: plan.restore.map((x) => x.config.name),
        park: plan.park.map((x) => x.config.name),
        skip: plan.skip
      }, expected)
      for (const x of plan.restore) assert.equal('parked' in x, false, 'a restored app is no longer parked')
      for (const x of plan.park) assert.equal(x.parked, true)
    })
  }
})

describe('recordedWorkers', () => {
  test('lists workers with a pid and a start time, with their group and kill timeout', () => {
    const found = recordedWorkers([app('f', { pids: [11, null] }), app('c', { mode: 'cluster', pids: [21, 22] })])
    assert.deepEqual(found, [
      { app: 'f', instance: 0, pid: 11, startTime: 't11', ownGroup: true, killTimeout: 700 },
      { app: 'c', instance: 0, pid: 21, startTime: 't21', ownGroup: false, killTimeout: 700 },
      { app: 'c', instance: 1, pid: 22, startTime: 't22', ownGroup: false, killTimeout: 700 }
    ])
  })

  test('a pid without a start time is not trusted', () => {
    const entry = app('x', { pids: [5] })
    entry.workers[0].start_time = null
    assert.deepEqual(recordedWorkers([entry]), [])
  })
})

test('an app restored after a crash gets the login variables of the daemon, none of the rest', () => {
  const daemon = { PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_TIME: 'en_GB.UTF-8', AWS_SECRET_ACCESS_KEY: 'x', PORT: '3000', SUP_HOME: '/tmp/s', TZ: undefined }
  assert.deepEqual(loginEnv(daemon), { PATH: '/usr/bin', HOME: '/home/u', LANG: 'C.UTF-8', LC_TIME: 'en_GB.UTF-8', SUP_HOME: '/tmp/s' })
})
