// @ts-check
// The client's half of the wire format (design §5): encode a request, decode a response or
// an event. Kept apart from ipc/protocol.js, whose daemon half checks every request against
// the method table, so that a `sup ls` loads neither the table nor its schemas.
import { SupError } from './errors.js'
import { PROTOCOL_VERSION } from './version.js'

/**
 * @typedef {import('./protocol.js').OkFrame} OkFrame
 * @typedef {import('./protocol.js').ErrorFrame} ErrorFrame
 * @typedef {import('./protocol.js').EventFrame} EventFrame
 */

/**
 * @param {number} id
 * @param {string} method
 * @param {Record<string, unknown>} [params]
 * @returns {string}
 */
export function encodeRequest (id, method, params = {}) {
  return JSON.stringify({ v: PROTOCOL_VERSION, id, method, params })
}

/**
 * Parse a frame on the client side: a response or an event.
 * @param {string} text
 * @returns {OkFrame | ErrorFrame | EventFrame}
 */
export function decodeReply (text) {
  let frame
  try {
    frame = JSON.parse(text)
  } catch (err) {
    throw new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'not JSON' }, { cause: err })
  }
  if (typeof frame !== 'object' || frame === null || (typeof frame.topic !== 'string' && typeof frame.ok !== 'boolean')) {
    throw new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'neither a response nor an event' })
  }
  return frame
}
