// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { dumpNotes, parseSort, renderMiniList, sortRows } from '../../../../client/commands/ls.js'

const base = { enabled: true, file: '/h/dump.json', recovery: null, parked: [], warnings: [], last_write: null, last_error: null }
const recovery = { at: 1000, end: 'crashed', previous_pid: 42, apps: ['api', 'jobs'], stopped: 0, killed: 0, source: '/h/dump.json' }

describe('dumpNotes', () => {
  /** @type {Array<[string, unknown, string[]]>} */
  const rows = [
    ['no daemon answer', null, []],
    ['a daemon without a dump (sup-runtime)', { enabled: false }, []],
    ['nothing to say', base, []],
    ['a crash recovery', { ...base, recovery }, ['note: the previous daemon (pid 42) died; restored api, jobs from /h/dump.json 5s ago']],
    ['a recovery that had to stop workers', { ...base, recovery: { ...recovery, stopped: 2, killed: 1 } }, ['note: the previous daemon (pid 42) died; restored api, jobs from /h/dump.json 5s ago; first stopped 2 of its workers that still ran; killed 1 process(es) it left behind']],
    ['a reboot', { ...base, recovery: { ...recovery, end: 'rebooted' } }, ['note: the machine restarted while the daemon ran; restored api, jobs from /h/dump.json 5s ago']],
    ['parked apps', { ...base, parked: ['a', 'b'] }, ['note: saved but not running: a, b (sup resurrect starts them)']],
    ['warnings and a failed write', { ...base, warnings: ['dump.json cannot be read'], last_error: 'ENOSPC' }, ['warning: dump.json cannot be read', 'warning: the process list could not be saved: ENOSPC']]
  ]
  for (const [name, status, expected] of rows) {
    test(name, () => assert.deepEqual(dumpNotes(status, 6000), expected))
  }
})

describe('ls --sort', () => {
  /** @param {number} id @param {string} name @param {number | null} pid @param {number} memory */
  const row = (id, name, pid, memory) => /** @type {import('../../../../ipc/methods.js').WorkerRow} */ (/** @type {unknown} */ ({ id, name, pid, memory, cpu: 0, uptime: 0, status: 'online', restarts: 0 }))
  const rows = [row(0, 'web', 30, 100), row(1, 'api', null, 300), row(2, 'api', 10, 200)]
  /** @type {Array<[string, number[]]>} */
  const table = [
    ['name', [1, 2, 0]],
    ['name:asc', [1, 2, 0]],
    ['name:desc', [0, 1, 2]],
    ['NAME:DESC', [0, 1, 2]],
    ['id:desc', [2, 1, 0]],
    ['pid', [1, 2, 0]],
    ['memory:desc', [1, 2, 0]]
  ]
  for (const [spec, expected] of table) {
    test(`${spec} orders ${expected.join(', ')} (ties keep id order)`, () => {
      assert.deepEqual(sortRows(rows, parseSort(spec)).map((r) => r.id), expected)
    })
  }
  for (const spec of ['colour', 'name:up', 'name:asc:x', '']) {
    test(`"${spec}" is a usage error`, () => assert.throws(() => parseSort(spec), { code: 'SUP_ERR_CLI_USAGE' }))
  }
})

test('ls -m: one block per worker, pid 0 when there is no process', () => {
  const lines = renderMiniList([({ id: 3, name: 'api', instance: 1, pid: null, status: 'stopped', mode: 'fork', restarts: 2, uptime: 0, memory: 0 })])
  assert.deepEqual(lines, ['+--- api', 'pid : 0', 'id : 3', 'instance : 1', 'status : stopped', 'mode : fork', 'restarted : 2', 'uptime : 0', 'memory usage : 0b', ''])
})
