// @ts-check
// Waiting, written one way: until(emitter, predicate, signal) resolves once the predicate
// holds (checked now and on each event), and rejects with the signal's reason when it is
// aborted first. A deadline is an AbortSignal made from the injected timers, so tests move
// it with their clock; a caller that means to go on after a timeout says so with
// `tolerateTimeout`, instead of a wait that swallows it.
import { SupError } from '../ipc/errors.js'

/**
 * @param {import('node:events').EventEmitter} emitter
 * @param {() => boolean} predicate
 * @param {AbortSignal} [signal] no deadline without one
 * @param {string} [event] what to check on ('change': any change of a worker's state)
 * @returns {Promise<void>}
 */
export function until (emitter, predicate, signal, event = 'change') {
  if (predicate()) return Promise.resolve()
  if (signal?.aborted) return Promise.reject(signal.reason)
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!predicate()) return
      stop()
      resolve()
    }
    const abort = () => {
      stop()
      reject(signal?.reason)
    }
    const stop = () => {
      emitter.off(event, check)
      signal?.removeEventListener('abort', abort)
    }
    emitter.on(event, check)
    signal?.addEventListener('abort', abort, { once: true })
  })
}

/**
 * Run `fn` with a signal that aborts after `ms` with SUP_ERR_DAEMON_WAIT_TIMEOUT; the timer is
 * cleared as soon as `fn` settles.
 * @template T
 * @param {number} ms
 * @param {import('./worker/effects.js').Timers} timers
 * @param {string} what what is waited for, for the message
 * @param {(signal: AbortSignal) => Promise<T>} fn
 * @returns {Promise<T>}
 */
export async function withDeadline (ms, timers, what, fn) {
  const controller = new AbortController()
  const timer = timers.setTimeout(() => controller.abort(new SupError('SUP_ERR_DAEMON_WAIT_TIMEOUT', { what, ms })), ms)
  try {
    return await fn(controller.signal)
  } finally {
    timers.clearTimeout(timer)
  }
}

/**
 * For a wait whose deadline is a reason to go on, not a failure: swallows the timeout only.
 * @param {unknown} err
 */
export function tolerateTimeout (err) {
  if (/** @type {{ code?: unknown }} */ (err)?.code !== 'SUP_ERR_DAEMON_WAIT_TIMEOUT') throw err
}
