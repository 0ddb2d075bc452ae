// @ts-check
// Readiness and liveness probes with Kubernetes semantics (docs/probes.md): a check every
// `period` after `initial_delay`, each bounded by `timeout`; `failure_threshold` failures in a
// row flip a passing probe to failing, `success_threshold` successes in a row flip it back.
// The verdicts are a pure function (`observe`); the runner only schedules checks on the
// timers it is given, so both are table-tested with a fake clock.

/**
 * @typedef {object} ProbeTiming ms, and counts
 * @property {number} initial_delay before the first check
 * @property {number} period from the start of one check to the start of the next
 * @property {number} timeout a check that takes longer fails
 * @property {number} failure_threshold failures in a row that make the probe fail
 * @property {number} success_threshold successes in a row that make a failing probe pass
 *
 * @typedef {'readiness' | 'liveness'} ProbeKind
 *
 * @typedef {object} ProbeState
 * @property {boolean} passing readiness starts failing (not ready until a check passes), liveness passing
 * @property {number} failures in a row
 * @property {number} successes in a row
 * @property {number} checks made so far
 * @property {string | null} last why the last failed check failed
 *
 * @typedef {{ ok: true } | { ok: false, reason: string }} CheckResult
 *
 * @typedef {object} Timers
 * @property {(fn: () => void, ms: number) => unknown} setTimeout
 * @property {(handle: unknown) => void} clearTimeout
 */

/** @type {Timers} */
const REAL_TIMERS = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(/** @type {NodeJS.Timeout} */ (handle))
}

/** Kubernetes' defaults, in ms. */
export const PROBE_DEFAULTS = Object.freeze({ initial_delay: 0, period: 10_000, timeout: 1000, failure_threshold: 3, success_threshold: 1 })

/**
 * @param {ProbeKind} kind
 * @returns {ProbeState}
 */
export function initialProbeState (kind) {
  return { passing: kind === 'liveness', failures: 0, successes: 0, checks: 0, last: null }
}

/**
 * The verdict after one check.
 * @param {ProbeState} state
 * @param {CheckResult} result
 * @param {Pick<ProbeTiming, 'failure_threshold' | 'success_threshold'>} timing
 * @returns {{ state: ProbeState, changed: boolean }}
 */
export function observe (state, result, timing) {
  const checks = state.checks + 1
  if (result.ok) {
    const successes = state.successes + 1
    const passing = state.passing || successes >= timing.success_threshold
    return { state: { passing, failures: 0, successes, checks, last: state.last }, changed: passing !== state.passing }
  }
  const failures = state.failures + 1
  const passing = state.passing && failures < timing.failure_threshold
  return { state: { passing, failures, successes: 0, checks, last: result.reason }, changed: passing !== state.passing }
}

/**
 * Run a probe until stopped. `check` gets an AbortSignal that fires at `timeout`; a check that
 * has not settled by then counts as failed ("timed out after N ms") and its late result is
 * ignored. Checks never overlap: a slow one delays the next.
 * @param {object} options
 * @param {ProbeKind} options.kind
 * @param {ProbeTiming} options.timing
 * @param {(signal: AbortSignal) => Promise<CheckResult>} options.check
 * @param {(state: ProbeState, changed: boolean) => void} options.onResult after every check
 * @param {Timers} [options.timers]
 * @param {() => number} [options.now]
 */
export function runProbe ({ kind, timing, check, onResult, timers = REAL_TIMERS, now = Date.now }) {
  let state = initialProbeState(kind)
  let stopped = false
  /** @type {unknown} */
  let timer = null
  /** @type {AbortController | null} */
  let inFlight = null

  const schedule = (/** @type {number} */ ms) => {
    timer = timers.setTimeout(tick, Math.max(0, ms))
  }

  const tick = async () => {
    timer = null
    if (stopped) return
    const began = now()
    const controller = new AbortController()
    inFlight = controller
    /** @type {CheckResult} */
    const result = await new Promise((resolve) => {
      const deadline = timers.setTimeout(() => {
        controller.abort()
        resolve({ ok: false, reason: `timed out after ${timing.timeout} ms` })
      }, timing.timeout)
      check(controller.signal).then(
        (r) => { timers.clearTimeout(deadline); resolve(r) },
        (err) => { timers.clearTimeout(deadline); resolve({ ok: false, reason: String(err?.message ?? err) }) }
      )
    })
    inFlight = null
    if (stopped) return
    const next = observe(state, result, timing)
    state = next.state
    onResult(state, next.changed)
    if (!stopped) schedule(timing.period - (now() - began))
  }

  const startedAt = now()
  schedule(timing.initial_delay)
  return {
    get state () { return state },
    /**
     * Check now instead of at the next period, when something suggests the verdict may have
     * changed (a starting worker has just listened). Not before initial_delay, and not while a
     * check is in flight.
     */
    poke () {
      if (stopped || inFlight !== null || timer === null || now() - startedAt < timing.initial_delay) return
      timers.clearTimeout(timer)
      schedule(0)
    },
    stop () {
      stopped = true
      if (timer !== null) timers.clearTimeout(timer)
      inFlight?.abort()
    }
  }
}
