// @ts-check
// Frames on the wire (design §5): JSON text, one message per frame, every one carrying "v".
import { SupError } from './errors.js'
import { METHODS, PROTOCOL_VERSION } from './methods.js'
import { validate } from './schema.js'

// The client's half lives apart, so the CLI need not load the method table (docs/benchmarks.md).
export { CLOSE_SLOW_CLIENT, CLOSE_SLOW_SUBSCRIBER, CLOSE_TOO_MANY_CONNECTIONS, closeError, decodeReply, encodeRequest } from './client-frames.js'

/**
 * @typedef {{ v: number, id: number, method: string, params: Record<string, unknown> }} RequestFrame
 * @typedef {{ v: number, id: number, ok: true, result: unknown }} OkFrame
 * @typedef {{ v: number, id: number, ok: false, error: { code: string, message: string, details?: Record<string, unknown> } }} ErrorFrame
 * @typedef {{ v: number, topic: string, data: unknown }} EventFrame
 */

/** The daemon's limits on its socket (docs/protocol.md#limits). */
export const IPC_LIMITS = Object.freeze({
  /** Largest frame accepted; a larger one closes the connection with 1009. */
  maxFrameBytes: 16 * 1024 * 1024,
  /** Connections open at once; one more is closed with CLOSE_TOO_MANY_CONNECTIONS. */
  maxConnections: 1024,
  /** Requests of one connection handled at once; past that, SUP_ERR_IPC_TOO_MANY_REQUESTS. */
  maxInFlight: 1024,
  /** Answers waiting for one client to read them before it is closed with CLOSE_SLOW_CLIENT. */
  maxBufferedBytes: 16 * 1024 * 1024,
  /** Time a new connection has to send its upgrade request (generous: a CLI on a loaded machine can be slow to write it). */
  handshakeMs: 10_000
})

/**
 * @param {number} id
 * @param {unknown} result
 */
export function encodeResult (id, result) {
  return JSON.stringify({ v: PROTOCOL_VERSION, id, ok: true, result: result ?? null })
}

/**
 * @param {number | null} id
 * @param {SupError} error
 */
export function encodeError (id, error) {
  return JSON.stringify({ v: PROTOCOL_VERSION, id, ok: false, error: error.toJSON() })
}

/**
 * @param {string} topic
 * @param {unknown} data
 */
export function encodeEvent (topic, data) {
  return JSON.stringify({ v: PROTOCOL_VERSION, topic, data })
}

/**
 * Parse and check a request frame on the daemon side: shape, known method, valid params.
 * @param {string} text
 * @returns {RequestFrame}
 * @throws {SupError & { requestId?: number }}
 */
export function decodeRequest (text) {
  let frame
  try {
    frame = JSON.parse(text)
  } catch (err) {
    throw new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'not JSON' }, { cause: err })
  }
  if (typeof frame !== 'object' || frame === null || !Number.isInteger(frame.id) || typeof frame.method !== 'string') {
    throw new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'a request needs an integer "id" and a string "method"' })
  }
  const id = frame.id
  const schema = Object.hasOwn(METHODS, frame.method) ? METHODS[frame.method] : undefined
  if (!schema) throw withId(new SupError('SUP_ERR_IPC_UNKNOWN_METHOD', { method: frame.method }), id)
  const params = frame.params ?? {}
  const problem = validate(schema, params)
  if (problem) throw withId(new SupError('SUP_ERR_IPC_INVALID_PARAMS', { method: frame.method, reason: problem }), id)
  return { v: frame.v, id, method: frame.method, params }
}

/**
 * @param {SupError} err
 * @param {number} id
 * @returns {SupError & { requestId: number }}
 */
function withId (err, id) {
  return Object.assign(err, { requestId: id })
}
