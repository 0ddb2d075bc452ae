// @ts-check
// A routed app (sticky, least-conn) cannot run on another node's cluster primary, whose
// connections Node's own cluster hands out: the spawn is refused with a coded error, never
// run unsticky (docs/errors.md SUP_ERR_CONFIG_ROUTING_RUNTIME).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { spawnWorker } from '../../../../daemon/worker/spawn.js'
import { SupError } from '../../../../ipc/errors.js'
import { appConfig } from '../../../helpers/fake-effects.js'

const otherNode = /** @type {any} */ ({ path: '/opt/node22/bin/node', own: false })
const context = /** @type {any} */ ({
  primaries: { fork: () => { throw new Error('forked on the other node') } },
  parentDeath: null,
  router: null
})

for (const routing of [{ sticky: true }, { balance: /** @type {const} */ ('least-conn') }]) {
  test(`${JSON.stringify(routing)} on another node's primary: SUP_ERR_CONFIG_ROUTING_RUNTIME, nothing forked`, () => {
    const config = appConfig({ name: 'chat', exec_mode: 'cluster', instances: 2, ...routing })
    assert.throws(() => spawnWorker(context, config, {}, null, otherNode), (err) => {
      assert.ok(err instanceof SupError)
      assert.equal(err.code, 'SUP_ERR_CONFIG_ROUTING_RUNTIME')
      assert.match(err.message, /app "chat" runs on \/opt\/node22\/bin\/node/)
      return true
    })
  })
}

test('an app without sticky or least-conn goes to the other node\'s primary as before', () => {
  const config = appConfig({ name: 'api', exec_mode: 'cluster', instances: 2 })
  assert.throws(() => spawnWorker(context, config, {}, null, otherNode), /forked on the other node/)
})
