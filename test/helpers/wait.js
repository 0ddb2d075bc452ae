// @ts-check
// How tests wait: on an event, or on a predicate checked until it holds, each with a deadline
// (AbortSignal.timeout) and a failure that names what was awaited and what was last seen.
// `settle` waits for the callbacks and file I/O the code under test has in flight (unit tests
// on fakes); `quietFor` is the one timed window, for "nothing may happen for X ms". See
// docs/testing.md.
import { on } from 'node:events'
import { setTimeout as sleepFor } from 'node:timers/promises'
import { inspect } from 'node:util'

/** ms between two checks of a predicate: cheap checks (a file, /proc, a socket request). */
const INTERVAL = 20

/**
 * @typedef {object} WaitOptions
 * @property {string} what what is awaited, for the failure message ("worker 0 online")
 * @property {number} [timeout] ms before giving up (default 10,000)
 * @property {number} [interval] ms between checks of a predicate (default 20)
 * @property {() => unknown} [show] what to report as last seen, when the check's own value
 *   says little (a file's text behind a `false`)
 * @property {AbortSignal} [signal] also give up when this aborts
 */

/**
 * Resolve with the first truthy value `check` returns (or resolves to); past the deadline the
 * error names `what` and the last value seen. A check that throws (or rejects) fails the wait
 * at once, as an assertion in it should: a check that expects a passing error (a file not
 * there yet, a port not open) catches it itself. For state with no event to wait on: files,
 * processes that are not our children, a port, the daemon's rows.
 * @template T
 * @param {() => T | Promise<T>} check
 * @param {WaitOptions} options
 * @returns {Promise<NonNullable<T>>}
 */
export async function waitFor (check, { what, timeout = 10_000, interval = INTERVAL, show, signal }) {
  const deadline = deadlineOf(timeout, signal)
  /** @type {unknown} */
  let last
  try {
    while (true) {
      const value = await check()
      if (value) return /** @type {NonNullable<T>} */ (value)
      last = value
      if (deadline.signal.aborted) throw timedOut(timeout, what, show ? show() : last, signal)
      await sleepFor(interval, undefined, { signal: deadline.signal }).catch(() => {})
    }
  } finally {
    deadline.clear()
  }
}

/**
 * Resolve with the arguments of the first `name` event (whose arguments pass `filter`) that
 * `emitter` sends; fail at the deadline with the last arguments seen. Subscribe before doing
 * what makes the event happen (start the wait, act, then await it), or the event can be missed.
 * @param {import('node:events').EventEmitter | EventTarget} emitter
 * @param {string} name
 * @param {WaitOptions & { filter?: (...args: any[]) => boolean }} options
 * @returns {Promise<any[]>}
 */
export async function waitForEvent (emitter, name, { what, timeout = 10_000, filter = () => true, show, signal }) {
  const deadline = deadlineOf(timeout, signal)
  /** @type {unknown} */
  let last = `no ${name} event`
  try {
    for await (const args of on(/** @type {any} */ (emitter), name, { signal: deadline.signal })) {
      if (filter(...args)) return args
      last = args
    }
  } catch (err) {
    if (!deadline.signal.aborted) throw err
  } finally {
    deadline.clear()
  }
  throw timedOut(timeout, what, show ? show() : last, signal)
}

/**
 * Resolve with what `promise` resolves to, or fail at the deadline naming `what`: for one
 * operation that must finish in time (a close, a child's exit).
 * @template T
 * @param {Promise<T>} promise
 * @param {WaitOptions} options
 * @returns {Promise<T>}
 */
export async function within (promise, { what, timeout = 10_000, show, signal }) {
  const deadline = deadlineOf(timeout, signal)
  /** @type {() => void} */
  let stop = () => {}
  const expired = new Promise((resolve, reject) => {
    const onAbort = () => reject(timedOut(timeout, what, show ? show() : 'still pending', signal))
    deadline.signal.addEventListener('abort', onAbort, { once: true })
    stop = () => deadline.signal.removeEventListener('abort', onAbort)
  })
  try {
    return /** @type {T} */ (await Promise.race([promise, expired]))
  } finally {
    stop()
    deadline.clear()
  }
}

/**
 * A negative window, not a wait: let `ms` pass in which `why` must hold (no restart follows,
 * no line is written); the test then asserts nothing happened. The only fixed delay a test
 * may take, and named so it is not mistaken for a wait.
 * @param {number} ms
 * @param {string} why what must not happen meanwhile, for the reader
 */
export async function quietFor (ms, why) {
  if (!why) throw new Error('quietFor needs the reason the window must stay quiet')
  await sleepFor(ms)
}

/** What `settle` waits out: callbacks already scheduled, and file I/O in flight (CloseReq: a FileHandle closing). */
const BUSY = new Set(['Immediate', 'FSReqCallback', 'FSReqPromise', 'CloseReq'])

/**
 * Resolve once the code under test has nothing left in flight but timers: no scheduled
 * callback (setImmediate, what a fake process does "soon"), no file operation, and every
 * promise that follows from them run. However many awaits a path takes, this waits them out
 * (a fixed number of turns did not). For unit tests on fakes, whose timers the fake clock
 * holds; a real timer is not waited for (use waitFor).
 * @param {{ timeout?: number, what?: string }} [options]
 */
export async function settle ({ timeout = 5000, what = 'scheduled callbacks and file I/O to finish' } = {}) {
  const deadline = deadlineOf(timeout)
  let quiet = 0
  while (true) {
    // Callbacks queued before this one run first, and every promise job they start runs
    // before this one resolves.
    await new Promise((resolve) => setImmediate(resolve))
    const busy = process.getActiveResourcesInfo().filter((type) => BUSY.has(type))
    // Quiet twice, a millisecond apart: between two steps of one fs/promises call (open,
    // write, close) Node 26 can show nothing in flight for a moment.
    if (busy.length === 0 && ++quiet >= 2) return deadline.clear()
    if (busy.length === 0) {
      await sleepFor(1)
      continue
    }
    quiet = 0
    if (deadline.signal.aborted) throw timedOut(timeout, what, `still in flight: ${busy.join(', ')}`)
    // File I/O finishes on the thread pool: give it a millisecond rather than spin.
    if (!busy.includes('Immediate')) await sleepFor(1)
  }
}

/**
 * A deadline that keeps the process alive until it passes: AbortSignal.timeout's timer is
 * unref'd, so a wait on an event with nothing else holding the event loop open would end the
 * test with "Promise resolution is still pending" instead of this wait's message. Call
 * `clear` when the wait is over.
 * @param {number} timeout
 * @param {AbortSignal} [signal]
 */
function deadlineOf (timeout, signal) {
  const own = AbortSignal.timeout(timeout)
  const hold = setTimeout(() => {}, timeout + 10)
  const aborted = signal ? AbortSignal.any([own, signal]) : own
  aborted.addEventListener('abort', () => clearTimeout(hold), { once: true })
  return { signal: aborted, clear: () => clearTimeout(hold) }
}

/**
 * @param {number} timeout
 * @param {string} what
 * @param {unknown} last
 * @param {AbortSignal} [signal]
 */
function timedOut (timeout, what, last, signal) {
  const why = signal?.aborted ? 'aborted' : `timed out after ${timeout} ms`
  const seen = typeof last === 'string'
    ? last
    : last instanceof Error ? `${last.name}: ${last.message}` : inspect(last, { depth: 4, breakLength: Infinity, maxStringLength: 2000 })
  return new Error(`${why} waiting for ${what}; last seen: ${seen}`)
}
