// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { normalizeSignal } from '../../../daemon/handlers.js'
import { SupError } from '../../../ipc/errors.js'

describe('normalizeSignal', () => {
  const valid = [
    ['usr2', 'SIGUSR2'],
    ['SIGUSR2', 'SIGUSR2'],
    ['SigUsr2', 'SIGUSR2'],
    ['sigterm', 'SIGTERM'],
    ['TERM', 'SIGTERM'],
    ['15', 'SIGTERM'],
    ['9', 'SIGKILL'],
    ['hup', 'SIGHUP'],
    ['int', 'SIGINT']
  ]
  for (const [input, expected] of valid) {
    test(`${JSON.stringify(input)} -> ${expected}`, () => assert.equal(normalizeSignal(input), expected))
  }

  const invalid = ['SIGNOPE', 'nope', '999', '0', '-15', '1.5', 'SIG', '', ' SIGTERM']
  for (const input of invalid) {
    test(`${JSON.stringify(input)} is SUP_ERR_APP_SIGNAL_INVALID`, () => {
      assert.throws(() => normalizeSignal(input), (err) => {
        assert.ok(err instanceof SupError)
        assert.equal(err.code, 'SUP_ERR_APP_SIGNAL_INVALID')
        assert.equal(err.details.signal, input)
        assert.ok(err.message.includes(`"${input}"`), err.message)
        return true
      })
    })
  }
})
