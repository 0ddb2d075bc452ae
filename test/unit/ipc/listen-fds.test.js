// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readListenFds, withoutListenVars } from '../../../ipc/listen-fds.js'
import { stringEnv } from '../../../client/shell-env.js'

test('readListenFds: the sockets meant for this pid, from fd 3, with their names', () => {
  assert.deepEqual(readListenFds({ LISTEN_PID: '9', LISTEN_FDS: '2', LISTEN_FDNAMES: 'web:api' }, 9), { fds: [3, 4], names: ['web', 'api'] })
  assert.deepEqual(readListenFds({ LISTEN_PID: '9', LISTEN_FDS: '2' }, 9), { fds: [3, 4], names: ['', ''] })
  for (const env of [{ LISTEN_PID: '8', LISTEN_FDS: '1' }, { LISTEN_FDS: '1' }, { LISTEN_PID: '9', LISTEN_FDS: '-1' }, { LISTEN_PID: '9', LISTEN_FDS: '1.5' }, { LISTEN_PID: '9', LISTEN_FDS: '99999' }]) {
    assert.equal(readListenFds(env, 9), null, JSON.stringify(env))
  }
})

test('the LISTEN_* variables never reach an app: dropped from the environment the CLI sends', () => {
  const env = { PATH: '/bin', LISTEN_PID: '9', LISTEN_FDS: '1', LISTEN_FDNAMES: 'web' }
  assert.deepEqual(withoutListenVars(env), { PATH: '/bin' })
  assert.deepEqual(stringEnv(env), { PATH: '/bin' })
})
