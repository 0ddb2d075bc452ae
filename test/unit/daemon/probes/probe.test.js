// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PROBE_DEFAULTS, initialProbeState, observe, runProbe } from '../../../../daemon/probes/probe.js'
import { settle } from '../../../helpers/wait.js'

const timing = (/** @type {Partial<import('../../../../daemon/probes/probe.js').ProbeTiming>} */ t = {}) => ({ ...PROBE_DEFAULTS, ...t })

/** @type {Array<[string, 'readiness' | 'liveness', string, { failure_threshold?: number, success_threshold?: number }, string]>} */
const verdicts = [
  // kind, results (+ ok, - failed), thresholds, passing after each
  ['readiness starts not ready; one success makes it ready', 'readiness', '+', {}, 'P'],
  ['readiness stays not ready while checks fail', 'readiness', '---', {}, 'fff'],
  ['ready until failure_threshold failures in a row', 'readiness', '+--+---', {}, 'PPPPPPf'],
  ['success_threshold 2: two in a row to become ready', 'readiness', '+-++', { success_threshold: 2 }, 'fffP'],
  ['liveness starts alive', 'liveness', '-', {}, 'P'],
  ['liveness fails at the third failure in a row', 'liveness', '---', {}, 'PPf'],
  ['a success in between resets the count', 'liveness', '--+--+---', {}, 'PPPPPPPPf'],
  ['failure_threshold 1: the first failure', 'liveness', '+-', { failure_threshold: 1 }, 'Pf'],
  ['a failed probe passes again after success_threshold successes', 'readiness', '+---+', {}, 'PPPfP']
]
for (const [name, kind, results, thresholds, expected] of verdicts) {
  test(`observe: ${name}`, () => {
    let state = initialProbeState(kind)
    let seen = ''
    for (const r of results) {
      state = observe(state, r === '+' ? { ok: true } : { ok: false, reason: 'no' }, timing(thresholds)).state
      seen += state.passing ? 'P' : 'f'
    }
    assert.equal(seen, expected)
  })
}

test('observe says when the verdict changed and keeps the last failure reason', () => {
  const first = observe(initialProbeState('liveness'), { ok: false, reason: 'GET /healthz answered 500' }, timing({ failure_threshold: 1 }))
  assert.deepEqual(first, { state: { passing: false, failures: 1, successes: 0, checks: 1, last: 'GET /healthz answered 500' }, changed: true })
  const second = observe(first.state, { ok: false, reason: 'again' }, timing({ failure_threshold: 1 }))
  assert.equal(second.changed, false)
})

/** Fake timers and clock: advance() fires due timers in order and lets promises settle. */
function fakeClock () {
  let now = 0
  let seq = 0
  /** @type {Map<number, { at: number, fn: () => void }>} */
  const pending = new Map()
  return {
    now: () => now,
    timers: {
      setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => {
        const id = ++seq
        pending.set(id, { at: now + ms, fn })
        return id
      },
      clearTimeout: (/** @type {unknown} */ id) => { pending.delete(/** @type {number} */ (id)) }
    },
    /** @param {number} to */
    async advanceTo (to) {
      await settle()
      while (true) {
        const due = [...pending.entries()].filter(([, t]) => t.at <= to).sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0]
        if (!due) break
        pending.delete(due[0])
        now = due[1].at
        due[1].fn()
        await settle()
      }
      now = to
    }
  }
}

/**
 * A probe whose checks answer from a script; records when each check started.
 * @param {Partial<import('../../../../daemon/probes/probe.js').ProbeTiming>} t
 * @param {(n: number, signal: AbortSignal) => Promise<import('../../../../daemon/probes/probe.js').CheckResult>} answer
 * @param {'readiness' | 'liveness'} [kind]
 */
function scripted (t, answer, kind = 'liveness') {
  const clock = fakeClock()
  /** @type {number[]} */
  const started = []
  /** @type {Array<{ at: number, passing: boolean, changed: boolean, last: string | null }>} */
  const results = []
  const probe = runProbe({
    kind,
    timing: timing(t),
    check: (signal) => {
      started.push(clock.now())
      return answer(started.length, signal)
    },
    onResult: (state, changed) => results.push({ at: clock.now(), passing: state.passing, changed, last: state.last }),
    timers: clock.timers,
    now: clock.now
  })
  return { clock, started, results, probe }
}

test('the first check comes after initial_delay, then one every period', async () => {
  const { clock, started } = scripted({ initial_delay: 500, period: 100 }, async () => ({ ok: true }))
  await clock.advanceTo(499)
  assert.deepEqual(started, [])
  await clock.advanceTo(800)
  assert.deepEqual(started, [500, 600, 700, 800])
})

test('a failing liveness probe fails at initial_delay + (failure_threshold - 1) x period', async () => {
  const { clock, results } = scripted({ initial_delay: 50, period: 100, failure_threshold: 3 }, async () => ({ ok: false, reason: 'ECONNREFUSED' }))
  await clock.advanceTo(1000)
  const flip = results.find((r) => r.changed)
  assert.deepEqual(flip, { at: 250, passing: false, changed: true, last: 'ECONNREFUSED' })
  assert.equal(results.filter((r) => r.changed).length, 1, 'it changes once')
})

test('a check that does not answer within timeout fails, is aborted, and its late answer is ignored', async () => {
  /** @type {AbortSignal[]} */
  const signals = []
  const { clock, results, started } = scripted({ period: 1000, timeout: 300, failure_threshold: 1 }, (n, signal) => {
    signals.push(signal)
    return new Promise(() => {})
  })
  await clock.advanceTo(299)
  assert.deepEqual(results, [])
  await clock.advanceTo(300)
  assert.deepEqual(results, [{ at: 300, passing: false, changed: true, last: 'timed out after 300 ms' }])
  assert.equal(signals[0].aborted, true)
  // The next check starts a period after the previous one started.
  await clock.advanceTo(1000)
  assert.deepEqual(started, [0, 1000])
})

test('a check slower than period delays the next one: checks never overlap', async () => {
  const { clock, started } = scripted({ period: 100, timeout: 1000 }, (n) => new Promise((resolve) => {
    // The first check takes 250 ms of fake time.
    if (n === 1) clock.timers.setTimeout(() => resolve({ ok: true }), 250)
    else resolve({ ok: true })
  }))
  await clock.advanceTo(400)
  assert.deepEqual(started, [0, 250, 350])
})

test('a check that throws counts as failed with its message', async () => {
  const { clock, results } = scripted({ failure_threshold: 1 }, async () => { throw new Error('spawn ENOENT') })
  await clock.advanceTo(0)
  assert.equal(results[0].last, 'spawn ENOENT')
})

test('stop: no check after it, and the one in flight is aborted', async () => {
  /** @type {AbortSignal[]} */
  const signals = []
  const { clock, started, probe, results } = scripted({ period: 100, timeout: 1000 }, (n, signal) => {
    signals.push(signal)
    return n === 1 ? Promise.resolve({ ok: true }) : new Promise(() => {})
  })
  await clock.advanceTo(150)
  probe.stop()
  assert.equal(signals[1].aborted, true)
  await clock.advanceTo(2000)
  assert.deepEqual(started, [0, 100])
  assert.equal(results.length, 1)
})

test('readiness: not ready until the first passing check', async () => {
  const { clock, results, probe } = scripted({ initial_delay: 0, period: 100 }, async (n) => n < 3 ? { ok: false, reason: 'GET / answered 503' } : { ok: true }, 'readiness')
  assert.equal(probe.state.passing, false)
  await clock.advanceTo(200)
  assert.deepEqual(results.map((r) => [r.at, r.passing, r.changed]), [[0, false, false], [100, false, false], [200, true, true]])
})

test('poke checks at once, but not before initial_delay nor during a check', async () => {
  /** @type {Array<(r: import('../../../../daemon/probes/probe.js').CheckResult) => void>} */
  const answers = []
  const { clock, started, probe } = scripted({ initial_delay: 100, period: 10_000, timeout: 5000 }, () => new Promise((resolve) => answers.push(resolve)), 'readiness')
  await clock.advanceTo(50)
  probe.poke()
  await clock.advanceTo(60)
  assert.deepEqual(started, [], 'not before initial_delay')
  await clock.advanceTo(100)
  assert.deepEqual(started, [100])
  probe.poke()
  await clock.advanceTo(150)
  assert.deepEqual(started, [100], 'not while a check is in flight')
  answers[0]({ ok: false, reason: 'no' })
  await clock.advanceTo(200)
  probe.poke()
  await clock.advanceTo(200)
  assert.deepEqual(started, [100, 200], 'at once, instead of at 10100')
  probe.stop()
  probe.poke()
  await clock.advanceTo(20_000)
  assert.deepEqual(started, [100, 200], 'nothing after stop')
})
