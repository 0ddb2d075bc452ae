// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import {
  BACKOFF_CAP,
  BACKOFF_FACTOR,
  BACKOFF_RESET_UPTIME,
  CRASH_LOOP_RETRY_BASE,
  CRASH_LOOP_RETRY_CAP,
  crashLoopRetryDelay,
  decideAfterExit
} from '../../../../daemon/worker/restart-policy.js'

/** @typedef {import('../../../../daemon/worker/restart-policy.js').PolicyConfig} PolicyConfig */
/** @typedef {import('../../../../daemon/worker/restart-policy.js').PolicyState} PolicyState */
/** @typedef {import('../../../../daemon/worker/restart-policy.js').Decision} Decision */

const NOW = 1_000_000
const { autorestart, stop_exit_codes: stopExitCodes, min_uptime: minUptime, max_restarts: maxRestarts, restart_delay: restartDelay, exp_backoff_restart_delay: expBackoff } = APP_DEFAULTS

/** @type {PolicyConfig} */
const DEFAULTS = Object.freeze({
  autorestart,
  stop_exit_codes: stopExitCodes,
  min_uptime: minUptime,
  max_restarts: maxRestarts,
  restart_delay: restartDelay,
  exp_backoff_restart_delay: expBackoff
})

/** @param {Partial<PolicyConfig>} [overrides] @returns {PolicyConfig} */
const config = (overrides = {}) => ({ ...DEFAULTS, ...overrides })

/**
 * State of a worker that has been up for `uptime` ms at NOW.
 * @param {number | null} uptime null: never spawned
 * @param {Partial<PolicyState>} [overrides]
 * @returns {PolicyState}
 */
const upFor = (uptime, overrides = {}) => ({
  startedAt: uptime === null ? null : NOW - uptime,
  unstableRestarts: 0,
  backoff: 0,
  crashLoops: 0,
  ...overrides
})

const CRASH = Object.freeze({ code: 1, signal: null })
const FAST = DEFAULTS.min_uptime - 1
const STABLE = DEFAULTS.min_uptime

describe('decideAfterExit', () => {
  /** @type {Array<[string, PolicyConfig, PolicyState, { code: number | null, signal: string | null }, Partial<Decision>]>} */
  const cases = [
    ['autorestart off stops', config({ autorestart: false }), upFor(STABLE), CRASH, { action: 'stop' }],
    ['autorestart off stops even a clean exit', config({ autorestart: false }), upFor(STABLE), { code: 0, signal: null }, { action: 'stop' }],
    ['exit code in stop_exit_codes stops', config({ stop_exit_codes: [0, 3] }), upFor(STABLE), { code: 3, signal: null }, { action: 'stop' }],
    ['exit code not in stop_exit_codes restarts', config({ stop_exit_codes: [0, 3] }), upFor(STABLE), { code: 2, signal: null }, { action: 'restart' }],
    ['a signal exit (code null) is never matched by stop_exit_codes', config({ stop_exit_codes: [0, 143] }), upFor(STABLE), { code: null, signal: 'SIGTERM' }, { action: 'restart' }],
    ['a clean exit restarts by default', config(), upFor(STABLE), { code: 0, signal: null }, { action: 'restart', delay: 0 }],

    ['a fast exit is counted', config(), upFor(FAST, { unstableRestarts: 2 }), CRASH, { action: 'restart', unstableRestarts: 3 }],
    ['an exit before any spawn counts as fast', config(), upFor(null), CRASH, { action: 'restart', unstableRestarts: 1 }],
    ['an exit at exactly min_uptime is stable and resets the count', config(), upFor(STABLE, { unstableRestarts: 5 }), CRASH, { action: 'restart', unstableRestarts: 0 }],
    ['the max_restarts-th fast exit still restarts', config(), upFor(FAST, { unstableRestarts: DEFAULTS.max_restarts - 1 }), CRASH,
      { action: 'restart', unstableRestarts: DEFAULTS.max_restarts }],
    ['the (max_restarts+1)-th fast exit is a crash loop', config(), upFor(FAST, { unstableRestarts: DEFAULTS.max_restarts }), CRASH,
      { action: 'errored', delay: CRASH_LOOP_RETRY_BASE, unstableRestarts: DEFAULTS.max_restarts + 1, crashLoops: 1 }],
    ['max_restarts 0: the first fast exit is a crash loop', config({ max_restarts: 0 }), upFor(FAST), CRASH,
      { action: 'errored', delay: CRASH_LOOP_RETRY_BASE, unstableRestarts: 1, crashLoops: 1 }],
    ['a second crash loop waits twice as long', config(), upFor(FAST, { unstableRestarts: DEFAULTS.max_restarts + 1, crashLoops: 1 }), CRASH,
      { action: 'errored', delay: 2 * CRASH_LOOP_RETRY_BASE, crashLoops: 2 }],
    ['crash-loop delays are capped', config(), upFor(FAST, { unstableRestarts: DEFAULTS.max_restarts + 1, crashLoops: 20 }), CRASH,
      { action: 'errored', delay: CRASH_LOOP_RETRY_CAP, crashLoops: 21 }],
    ['crashLoops survive a run shorter than the reset uptime', config(), upFor(BACKOFF_RESET_UPTIME - 1, { crashLoops: 3 }), CRASH,
      { action: 'restart', unstableRestarts: 0, crashLoops: 3 }],
    ['crashLoops reset after the reset uptime', config(), upFor(BACKOFF_RESET_UPTIME, { crashLoops: 3 }), CRASH,
      { action: 'restart', unstableRestarts: 0, crashLoops: 0 }],
    ['a crash loop right after a long run starts from the base delay', config({ max_restarts: 0, min_uptime: 2 * BACKOFF_RESET_UPTIME }),
      upFor(BACKOFF_RESET_UPTIME, { crashLoops: 3 }), CRASH, { action: 'errored', delay: CRASH_LOOP_RETRY_BASE, crashLoops: 1 }],

    ['restart_delay is used as is', config({ restart_delay: 2500 }), upFor(STABLE), CRASH, { action: 'restart', delay: 2500, backoff: 0 }],
    ['restart_delay is used as is for fast exits too', config({ restart_delay: 2500 }), upFor(FAST), CRASH, { action: 'restart', delay: 2500, unstableRestarts: 1 }],

    ['backoff: the first delay is the base', config({ exp_backoff_restart_delay: 100 }), upFor(STABLE), CRASH, { action: 'restart', delay: 100, backoff: 100 }],
    ['backoff: then x1.5', config({ exp_backoff_restart_delay: 100 }), upFor(STABLE, { backoff: 100 }), CRASH, { action: 'restart', delay: 150, backoff: 150 }],
    ['backoff: rounded', config({ exp_backoff_restart_delay: 101 }), upFor(STABLE, { backoff: 101 }), CRASH, { action: 'restart', delay: 152, backoff: 152 }],
    ['backoff: capped', config({ exp_backoff_restart_delay: 100 }), upFor(STABLE, { backoff: 14_000 }), CRASH, { action: 'restart', delay: BACKOFF_CAP, backoff: BACKOFF_CAP }],
    ['backoff: stays at the cap', config({ exp_backoff_restart_delay: 100 }), upFor(STABLE, { backoff: BACKOFF_CAP }), CRASH, { action: 'restart', delay: BACKOFF_CAP }],
    ['backoff: kept after a run just short of the reset uptime', config({ exp_backoff_restart_delay: 100 }), upFor(BACKOFF_RESET_UPTIME - 1, { backoff: 5000 }), CRASH,
      { action: 'restart', delay: 7500 }],
    ['backoff: back to the base after the reset uptime', config({ exp_backoff_restart_delay: 100 }), upFor(BACKOFF_RESET_UPTIME, { backoff: 5000 }), CRASH,
      { action: 'restart', delay: 100, backoff: 100 }],
    ['backoff: wins over restart_delay', config({ exp_backoff_restart_delay: 100, restart_delay: 2500 }), upFor(STABLE), CRASH, { action: 'restart', delay: 100 }]
  ]

  for (const [name, cfg, state, exit, expected] of cases) {
    test(name, () => {
      const decision = decideAfterExit(cfg, state, exit, NOW)
      assert.deepEqual(pick(decision, Object.keys(expected)), expected)
    })
  }

  test('a stop decision says why', () => {
    const decision = decideAfterExit(config({ stop_exit_codes: [0] }), upFor(STABLE), { code: 0, signal: null }, NOW)
    assert.equal(decision.action, 'stop')
    assert.match(/** @type {{ reason: string }} */ (decision).reason, /stop_exit_codes/)
  })

  test('fast exits lead to errored after max_restarts restarts, then retries 30 s, 60 s, ... capped at 300 s', () => {
    const cfg = config({ max_restarts: 3 })
    let state = upFor(FAST)
    /** @type {string[]} */
    const actions = []
    /** @type {number[]} */
    const retryDelays = []
    for (let exit = 0; exit < 12; exit++) {
      const decision = decideAfterExit(cfg, state, CRASH, NOW)
      actions.push(decision.action)
      assert.notEqual(decision.action, 'stop')
      const d = /** @type {Exclude<Decision, { action: 'stop' }>} */ (decision)
      if (d.action === 'errored') retryDelays.push(d.delay)
      state = upFor(FAST, { unstableRestarts: d.unstableRestarts, crashLoops: d.crashLoops, backoff: d.action === 'restart' ? d.backoff : state.backoff })
    }
    assert.deepEqual(actions, [...Array(3).fill('restart'), ...Array(9).fill('errored')])
    assert.deepEqual(retryDelays, [30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000, 300_000, 300_000])
  })

  test('exponential backoff grows by the factor to the cap over consecutive crashes', () => {
    const base = 100
    const cfg = config({ exp_backoff_restart_delay: base })
    let state = upFor(STABLE)
    /** @type {number[]} */
    const delays = []
    for (let i = 0; i < 16; i++) {
      const decision = /** @type {Extract<Decision, { action: 'restart' }>} */ (decideAfterExit(cfg, state, CRASH, NOW))
      delays.push(decision.delay)
      state = upFor(STABLE, { backoff: decision.backoff })
    }
    /** @type {number[]} */
    const expected = []
    for (let d = base; expected.length < 16; d = Math.min(Math.round(d * BACKOFF_FACTOR), BACKOFF_CAP)) expected.push(d)
    assert.deepEqual(delays.slice(0, 5), [100, 150, 225, 338, 507])
    assert.deepEqual(delays, expected)
    assert.equal(delays.at(-1), BACKOFF_CAP)
  })
})

describe('crashLoopRetryDelay', () => {
  const cases = [[0, 30_000], [1, 60_000], [2, 120_000], [3, 240_000], [4, 300_000], [5, 300_000], [50, 300_000]]
  for (const [loops, expected] of cases) {
    test(`${loops} loops -> ${expected} ms`, () => assert.equal(crashLoopRetryDelay(loops), expected))
  }

  test('starts at the base and never exceeds the cap', () => {
    assert.equal(crashLoopRetryDelay(0), CRASH_LOOP_RETRY_BASE)
    for (let loops = 0; loops < 64; loops++) assert.ok(crashLoopRetryDelay(loops) <= CRASH_LOOP_RETRY_CAP)
  })
})

/**
 * @param {object} obj
 * @param {string[]} keys
 */
function pick (obj, keys) {
  return Object.fromEntries(keys.map((key) => [key, /** @type {Record<string, unknown>} */ (obj)[key]]))
}
