// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { dumpNotes } from '../../../../client/commands/ls.js'

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
