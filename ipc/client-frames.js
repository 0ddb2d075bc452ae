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

/** WebSocket close code: the daemon dropped a subscriber that fell too far behind its events. */
export const CLOSE_SLOW_SUBSCRIBER = 4008
/** WebSocket close code: the client left too many answers unread (IPC_LIMITS.maxBufferedBytes). */
export const CLOSE_SLOW_CLIENT = 4009
/** WebSocket close code: the daemon already had IPC_LIMITS.maxConnections connections. */
export const CLOSE_TOO_MANY_CONNECTIONS = 4013
/** WebSocket close code (RFC 6455): a frame was larger than the daemon accepts. */
const CLOSE_TOO_BIG = 1009

/**
 * What a close of the connection by the daemon means for the requests still waiting.
 * @param {number} code the WebSocket close code (1006: no close frame)
 * @param {string} reason
 * @returns {SupError}
 */
export function closeError (code, reason) {
  switch (code) {
    case CLOSE_TOO_BIG: return new SupError('SUP_ERR_IPC_FRAME_TOO_LARGE', { reason })
    case CLOSE_TOO_MANY_CONNECTIONS: return new SupError('SUP_ERR_IPC_TOO_MANY_CONNECTIONS')
    case CLOSE_SLOW_CLIENT: return new SupError('SUP_ERR_IPC_CLIENT_TOO_SLOW')
    case CLOSE_SLOW_SUBSCRIBER: return new SupError('SUP_ERR_IPC_SUBSCRIBER_TOO_SLOW')
    default: return new SupError('SUP_ERR_IPC_CONNECTION_LOST', { reason: 'the daemon closed the connection' })
  }
}

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
