// @ts-check
// What a sticky app's connection is keyed on, read from the first bytes of its first request
// (the daemon reads them before it picks a worker, as @socket.io/sticky's primary does). Pure:
// bytes in, a key out. Everything here comes from the network and is hostile: sizes are
// capped, nothing is trusted beyond choosing a worker, and X-Forwarded-For only when the app
// says a proxy of its own stands in front (`trust_proxy`).

/** How many bytes of a request head are read at most before the connection is routed anyway. */
export const MAX_HEAD_BYTES = 16 * 1024

/** socket.io's session ids (engine.io: base64id, 20 characters) and a cookie's value, bounded. */
const TOKEN = /^[A-Za-z0-9_\-.~%+/=]{1,128}$/

/**
 * @typedef {object} RequestHead
 * @property {string | null} target the request line's target (path and query), null when the bytes are not HTTP
 * @property {string[]} cookies the values of every Cookie header
 * @property {string | null} forwardedFor the first X-Forwarded-For header
 *
 * @typedef {object} KeyOptions
 * @property {string | null} cookie the cookie that names a session (sticky_cookie), or none
 * @property {boolean} trustProxy whether X-Forwarded-For names the client (trust_proxy)
 */

/**
 * Whether `bytes` hold a whole request head (or as much as will be read).
 * @param {Buffer} bytes
 */
export function headComplete (bytes) {
  return bytes.length >= MAX_HEAD_BYTES || bytes.includes('\r\n\r\n')
}

/**
 * The parts of a request head that keys are made of. Not a validating parser: the worker's
 * own HTTP parser judges the request; this only looks for the key.
 * @param {Buffer} bytes the first bytes of a connection
 * @returns {RequestHead}
 */
export function readHead (bytes) {
  const text = bytes.subarray(0, MAX_HEAD_BYTES).toString('latin1')
  const end = text.indexOf('\r\n\r\n')
  const lines = (end === -1 ? text : text.slice(0, end)).split('\r\n')
  const request = /^[A-Z]{1,16} (\S{1,8192}) HTTP\/\d\.\d$/.exec(lines[0] ?? '')
  /** @type {RequestHead} */
  const head = { target: request ? request[1] : null, cookies: [], forwardedFor: null }
  if (!request) return head
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(':')
    if (colon <= 0) continue
    const name = lines[i].slice(0, colon).trim().toLowerCase()
    const value = lines[i].slice(colon + 1).trim()
    if (name === 'cookie') head.cookies.push(value)
    else if (name === 'x-forwarded-for' && head.forwardedFor === null) head.forwardedFor = value
  }
  return head
}

/**
 * One parameter of a request target's query, or null.
 * @param {string} target
 * @param {string} name
 */
export function queryParam (target, name) {
  const q = target.indexOf('?')
  if (q === -1) return null
  for (const pair of target.slice(q + 1).split('&')) {
    const eq = pair.indexOf('=')
    if ((eq === -1 ? pair : pair.slice(0, eq)) === name) return eq === -1 ? '' : pair.slice(eq + 1)
  }
  return null
}

/**
 * A cookie's value from Cookie headers, or null.
 * @param {string[]} headers
 * @param {string} name
 */
export function cookieValue (headers, name) {
  for (const header of headers) {
    for (const part of header.split(';')) {
      const eq = part.indexOf('=')
      if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
    }
  }
  return null
}

/**
 * The key a sticky connection is routed on:
 * - `sid:<id>`: socket.io's session id (query `sid`): the worker that made the session;
 * - `cookie:<value>`: the configured cookie;
 * - null: a socket.io handshake (query `EIO` without `sid`): a new session, placed where the
 *   fewest connections are, whatever the client's address (many clients share a proxy's);
 * - `addr:<address>`: the client's address (X-Forwarded-For's first entry with trust_proxy).
 * @param {RequestHead} head
 * @param {KeyOptions} options
 * @param {string | undefined} remoteAddress the connection's peer
 * @returns {string | null}
 */
export function routingKey (head, options, remoteAddress) {
  if (head.target !== null) {
    const sid = queryParam(head.target, 'sid')
    if (sid !== null && TOKEN.test(sid)) return `sid:${sid}`
    if (options.cookie !== null) {
      const value = cookieValue(head.cookies, options.cookie)
      if (value !== null && TOKEN.test(value)) return `cookie:${value}`
    }
    if (queryParam(head.target, 'EIO') !== null) return null
    if (options.trustProxy && head.forwardedFor !== null) {
      const first = head.forwardedFor.split(',')[0].trim()
      if (/^[0-9A-Fa-f:.]{2,45}$/.test(first)) return `addr:${first}`
    }
  }
  return remoteAddress ? `addr:${remoteAddress}` : null
}
