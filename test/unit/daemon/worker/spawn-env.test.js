// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { replacingEnv } from '../../../../daemon/worker/spawn.js'

test('a cluster worker env masks every variable of the daemon the request does not give', (t) => {
  process.env.SUP_TEST_ONLY_IN_DAEMON = 'secret'
  t.after(() => { delete process.env.SUP_TEST_ONLY_IN_DAEMON })
  const env = replacingEnv({ PATH: '/bin', PORT: '80' })
  assert.equal('SUP_TEST_ONLY_IN_DAEMON' in env, true)
  assert.equal(env.SUP_TEST_ONLY_IN_DAEMON, undefined)
  assert.deepEqual(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined)), { PATH: '/bin', PORT: '80' })
})
