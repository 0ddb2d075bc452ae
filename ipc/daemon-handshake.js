// @ts-check
// The daemon's first word to the CLI that spawned it, over the IPC channel of the spawn
// (daemon/main.js says it, client/spawn-daemon.js reads it): ready, or why it could not
// start. Kept light: spawn-daemon.js loads it before the CLI itself (a cold `sup ls`).
import { SupError } from './errors.js'

/** The word's `sup` field. */
export const HANDSHAKE = Object.freeze({ ready: 'daemon-ready', failed: 'daemon-failed' })

/**
 * @typedef {{ sup: typeof HANDSHAKE.ready, pid: number }} ReadyWord
 * @typedef {{ sup: typeof HANDSHAKE.failed, error: { code: string, message: string, details: Record<string, unknown> } }} FailedWord
 * @typedef {{ ready: true, pid: number | null } | { ready: false, error: SupError }} Handshake what the CLI makes of the word
 */

/**
 * @param {number} pid
 * @returns {ReadyWord}
 */
export function readyWord (pid) {
  return { sup: HANDSHAKE.ready, pid }
}

/**
 * @param {SupError} error
 * @returns {FailedWord}
 */
export function failedWord (error) {
  return { sup: HANDSHAKE.failed, error: error.toJSON() }
}

/**
 * Read the daemon's word. A failure carries the daemon's SupError; anything else counts as
 * ready, as it always has: the connection that follows (and its hello) is the real check.
 * @param {unknown} message
 * @returns {Handshake}
 */
export function readHandshake (message) {
  const word = message !== null && typeof message === 'object' ? /** @type {Record<string, any>} */ (message) : {}
  if (word.sup === HANDSHAKE.failed) {
    const error = word.error !== null && typeof word.error === 'object' ? word.error : {}
    return { ready: false, error: SupError.fromJSON({ code: str(error.code), message: str(error.message), details: error.details !== null && typeof error.details === 'object' ? error.details : {} }) }
  }
  return { ready: true, pid: word.sup === HANDSHAKE.ready && Number.isInteger(word.pid) ? word.pid : null }
}

/** @param {unknown} value */
const str = (value) => typeof value === 'string' ? value : undefined
