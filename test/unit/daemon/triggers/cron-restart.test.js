// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { CronSchedule, nextCronRun } from '../../../../daemon/triggers/cron-restart.js'

process.env.TZ = 'UTC'
const at = (/** @type {string} */ iso) => Date.parse(iso)

describe('nextCronRun', () => {
  /** @type {Array<[string, string, string]>} */
  const cases = [
    ['0 3 * * *', '2026-01-01T00:00:00Z', '2026-01-01T03:00:00.000Z'],
    ['0 3 * * *', '2026-01-01T03:00:00Z', '2026-01-02T03:00:00.000Z'],
    ['*/2 * * * * *', '2026-01-01T00:00:00.500Z', '2026-01-01T00:00:02.000Z'],
    ['* * * * * *', '2026-01-01T00:00:00Z', '2026-01-01T00:00:01.000Z'],
    ['0 0 * * 1', '2026-01-01T00:00:00Z', '2026-01-05T00:00:00.000Z'],
    ['@hourly', '2026-01-01T00:30:00Z', '2026-01-01T01:00:00.000Z']
  ]
  for (const [expression, from, expected] of cases) {
    test(`${expression} after ${from}`, () => assert.equal(new Date(/** @type {number} */ (nextCronRun(expression, at(from)))).toISOString(), expected))
  }
})

/** Fake timers: a list of pending timers the test fires by hand. */
function fakeTimers () {
  /** @type {Array<{ fn: () => void, ms: number, cleared: boolean }>} */
  const pending = []
  return {
    pending,
    setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
      const timer = { fn, ms, cleared: false }
      pending.push(timer)
      return timer
    },
    clearTimeout: (/** @type {any} */ timer) => { if (timer) timer.cleared = true },
    /** Fire the newest timer. */
    fireLast () {
      const timer = /** @type {{ fn: () => void, ms: number, cleared: boolean }} */ (pending[pending.length - 1])
      assert.equal(timer.cleared, false)
      timer.fn()
    }
  }
}

describe('CronSchedule', () => {
  test('waits until each time the expression names and ticks once per time', () => {
    let now = at('2026-01-01T00:00:00.250Z')
    const timers = fakeTimers()
    let ticks = 0
    const schedule = new CronSchedule({ expression: '*/5 * * * * *', onTick: () => ticks++, now: () => now, timers }).start()
    assert.equal(schedule.next, at('2026-01-01T00:00:05Z'))
    assert.equal(timers.pending[0].ms, 4750)
    now = at('2026-01-01T00:00:05Z')
    timers.fireLast()
    assert.equal(ticks, 1)
    assert.equal(schedule.next, at('2026-01-01T00:00:10Z'))
    assert.equal(timers.pending[1].ms, 5000)
  })

  test('a timer that fires early waits again without ticking', () => {
    let now = at('2026-01-01T00:00:00Z')
    const timers = fakeTimers()
    let ticks = 0
    new CronSchedule({ expression: '*/5 * * * * *', onTick: () => ticks++, now: () => now, timers }).start()
    now = at('2026-01-01T00:00:04.990Z')
    timers.fireLast()
    assert.equal(ticks, 0)
    assert.equal(timers.pending[1].ms, 10)
  })

  test('a tick missed by a long pause is not caught up: one tick, then the next time after now', () => {
    let now = at('2026-01-01T00:00:00Z')
    const timers = fakeTimers()
    let ticks = 0
    const schedule = new CronSchedule({ expression: '* * * * * *', onTick: () => ticks++, now: () => now, timers }).start()
    now = at('2026-01-01T00:00:30.500Z')
    timers.fireLast()
    assert.equal(ticks, 1)
    assert.equal(schedule.next, at('2026-01-01T00:00:31Z'))
  })

  test('a wait longer than a timer can hold is made of several', () => {
    let now = at('2026-01-01T00:00:00Z')
    const timers = fakeTimers()
    let ticks = 0
    new CronSchedule({ expression: '0 0 1 6 *', onTick: () => ticks++, now: () => now, timers }).start()
    assert.equal(timers.pending[0].ms, 2 ** 31 - 1)
    now += 2 ** 31 - 1
    timers.fireLast()
    assert.equal(ticks, 0)
    assert.equal(timers.pending.length, 2)
  })

  test('stop clears the timer and nothing ticks after it', () => {
    const timers = fakeTimers()
    let ticks = 0
    const schedule = new CronSchedule({ expression: '* * * * * *', onTick: () => ticks++, now: () => 0, timers }).start()
    schedule.stop()
    assert.equal(timers.pending[0].cleared, true)
    assert.equal(schedule.next, null)
    assert.equal(ticks, 0)
  })
})
