// @ts-check
// The daemon's clock for durations must not follow the wall clock when it jumps.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { realEffects } from '../../../../daemon/worker/effects.js'

for (const jump of [3_600_000, -3_600_000]) {
  test(`now() does not follow the wall clock set ${jump > 0 ? 'forward' : 'back'} an hour`, (t) => {
    const before = realEffects().now()
    const wall = Date.now
    t.mock.method(Date, 'now', () => wall() + jump)
    const after = realEffects().now()
    assert.ok(after >= before, `never backwards: ${before} -> ${after}`)
    assert.ok(after - before < 1000, `moved ${after - before} ms, not the jump`)
    assert.ok(Number.isInteger(after), 'whole ms, like Date.now()')
    assert.ok(Math.abs(after - wall()) < 60_000, 'reads like Date.now() while the wall clock is right')
  })
}
