// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HANDSHAKE, failedWord, readHandshake, readyWord } from '../../../ipc/daemon-handshake.js'
import { SupError } from '../../../ipc/errors.js'

test('what the daemon says is what the CLI reads', () => {
  assert.deepEqual(readHandshake(readyWord(1234)), { ready: true, pid: 1234 })
  const word = failedWord(new SupError('SUP_ERR_DAEMON_ALREADY_RUNNING', { home: '/h', pid: 9 }))
  assert.equal(word.sup, HANDSHAKE.failed)
  const read = readHandshake(JSON.parse(JSON.stringify(word)))
  assert.equal(read.ready, false)
  if (read.ready) return
  assert.ok(read.error instanceof SupError)
  assert.equal(read.error.code, 'SUP_ERR_DAEMON_ALREADY_RUNNING')
  assert.equal(read.error.message, 'a daemon is already running for /h (pid 9)')
  assert.deepEqual(read.error.details, { home: '/h', pid: 9 })
})

/** @type {Array<[string, unknown, { ready: boolean, pid?: number | null, code?: string, message?: string }]>} */
const rows = [
  ['ready', { sup: 'daemon-ready', pid: 42 }, { ready: true, pid: 42 }],
  ['ready without a pid', { sup: 'daemon-ready' }, { ready: true, pid: null }],
  ['ready with a pid that is no pid', { sup: 'daemon-ready', pid: '42' }, { ready: true, pid: null }],
  ['a failure', { sup: 'daemon-failed', error: { code: 'SUP_ERR_DAEMON_START_FAILED', message: 'no', details: { reason: 'x' } } }, { ready: false, code: 'SUP_ERR_DAEMON_START_FAILED', message: 'no' }],
  ['a failure with a code from a newer daemon', { sup: 'daemon-failed', error: { code: 'SUP_ERR_FUTURE', message: 'later' } }, { ready: false, code: 'SUP_ERR_FUTURE', message: 'later' }],
  ['a failure without its error', { sup: 'daemon-failed' }, { ready: false, code: 'SUP_ERR_INTERNAL_ERROR', message: 'unknown error' }],
  ['a failure whose fields are not strings', { sup: 'daemon-failed', error: { code: 7, message: {}, details: 'x' } }, { ready: false, code: 'SUP_ERR_INTERNAL_ERROR', message: 'unknown error' }],
  // Anything else counts as ready, as before: the connection and its hello check the daemon.
  ['an older daemon\'s word', { ok: true }, { ready: true, pid: null }],
  ['not an object', 'ready', { ready: true, pid: null }],
  ['null', null, { ready: true, pid: null }]
]
for (const [what, message, expected] of rows) {
  test(`${what}: ${JSON.stringify(message)}`, () => {
    const read = readHandshake(message)
    assert.equal(read.ready, expected.ready)
    if (read.ready) {
      assert.equal(read.pid, expected.pid)
    } else {
      assert.equal(read.error.code, expected.code)
      assert.equal(read.error.message, expected.message)
    }
  })
}
