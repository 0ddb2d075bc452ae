// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { balanceFromEnv, DEFAULT_BALANCE, parseBalance } from '../../../ipc/balance.js'
import { SupError } from '../../../ipc/errors.js'

describe('balanceFromEnv', () => {
  const cases = [
    [{}, DEFAULT_BALANCE],
    [{ SUP_BALANCE: '' }, DEFAULT_BALANCE],
    [{ SUP_BALANCE: 'rr' }, 'rr'],
    [{ SUP_BALANCE: 'os' }, 'os']
  ]
  for (const [env, expected] of cases) {
    test(`${JSON.stringify(env)} -> ${expected}`, () => assert.equal(balanceFromEnv(/** @type {NodeJS.ProcessEnv} */ (env)), expected))
  }
  test('the default is round-robin', () => assert.equal(DEFAULT_BALANCE, 'rr'))
})

describe('parseBalance', () => {
  for (const value of ['RR', 'none', 'round-robin', ' os', 7, null, undefined]) {
    test(`${JSON.stringify(value)} is SUP_ERR_CONFIG_INVALID_BALANCE naming its source`, () => {
      assert.throws(() => parseBalance(value, '--balance'), (err) => {
        assert.ok(err instanceof SupError)
        assert.equal(err.code, 'SUP_ERR_CONFIG_INVALID_BALANCE')
        assert.equal(err.details.source, '--balance')
        assert.match(err.message, /^invalid --balance ".*" \(use "rr": .*, or "os": .*\)$/)
        return true
      })
    })
  }
})
