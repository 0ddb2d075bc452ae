'use strict'
// The worker's side of sup's connection routing (sticky sessions, least-conn: the daemon's
// side is daemon/balance/router.js). A cluster worker's `server.listen(port)` asks its primary
// through `cluster._getServer`; for a routed app the agent answers that call itself: it asks
// the daemon to listen (`listen`), and gives the server a stand-in handle built as Node's own
// round-robin one is (lib/internal/cluster/child.js), so the app's server looks and behaves as
// under Node's primary (address(), close(), 'listening', maxConnections). Each connection the
// daemon picks for this worker arrives as `conn` with the socket as its handle and the bytes
// the daemon read (sticky); it is fed to the server as Node's primary's are, the bytes are
// put back in front of the socket's stream, and the daemon hears `took` (or a refusal, while
// the server is closed or gated, and the daemon offers it to another worker).
const dc = require('node:diagnostics_channel')
const protocol = require('../../ipc/agent-protocol.cjs')

/** Node's setInterval maximum: the stand-in handle keeps the worker alive as a real one would. */
const TIMEOUT_MAX = 2 ** 31 - 1
/** Closed connections are reported together, at most this often (ms). */
const REPORT_MS = 50

/**
 * @param {(message: unknown) => void} tell sends to the daemon
 * @param {{ sticky: boolean }} options sticky: report the socket.io sessions this worker starts
 * @returns {import('../../ipc/agent-protocol.cjs').AgentHandlers | null} the daemon's messages
 *   this part answers; null when this node's cluster has no _getServer to take over
 */
function routeListens (tell, { sticky }) {
  const cluster = /** @type {any} */ (require('node:cluster'))
  const getServer = cluster._getServer
  if (typeof getServer !== 'function') return null
  /** seq → the listen's callback */
  const asked = new Map()
  /** key → { server, handle } */
  const handles = new Map()
  /** address:port:addressType → listens so far (port 0: each listen its own port, shared by index) */
  const indexes = new Map()
  let seq = 0
  let closedSince = 0
  /** @type {any} */
  let reportTimer = null
  /** The socket net's onconnection makes for the handle being handed in (see takeConnection). */
  /** @type {any} */
  let expected = null
  /** @type {any} */
  let made = null

  dc.subscribe('net.server.socket', (/** @type {any} */ { socket }) => {
    if (expected !== null && socket._handle === expected) made = socket
  })

  cluster._getServer = function (/** @type {any} */ server, /** @type {any} */ options, /** @type {Function} */ cb) {
    if (options.fd != null || !(options.addressType === 4 || options.addressType === 6)) return getServer.call(this, server, options, cb)
    const indexesKey = `${options.address}:${options.port}:${options.addressType}`
    const index = indexes.get(indexesKey) ?? 0
    indexes.set(indexesKey, index + 1)
    const id = ++seq
    asked.set(id, (/** @type {any} */ reply) => {
      if (typeof reply.errno === 'number') return cb(reply.errno, null)
      server.once('listening', () => tell(protocol.fromAgent('listening')))
      // Node's own callback: errno 0 and the handle (lib/net.js listenOnPrimaryHandle).
      // eslint-disable-next-line n/no-callback-literal
      cb(0, standIn(server, String(reply.key), reply.sockname))
    })
    tell(protocol.fromAgent('listen', { seq: id, address: options.address ?? null, port: options.port, addressType: options.addressType, index, flags: options.flags ?? 0, backlog: options.backlog ?? null }))
  }

  /**
   * @param {any} server
   * @param {string} key
   * @param {any} sockname
   */
  function standIn (server, key, sockname) {
    /** @type {any} */
    let keepAlive = null
    let open = true
    const handle = {
      close () {
        if (!open) return
        open = false
        handle.unref()
        handles.delete(key)
        tell(protocol.fromAgent('unlisten', { key }))
      },
      listen () { return 0 },
      ref () { keepAlive ??= setInterval(() => {}, TIMEOUT_MAX) },
      unref () {
        if (keepAlive !== null) clearInterval(keepAlive)
        keepAlive = null
      },
      getsockname (/** @type {any} */ out) {
        if (open && sockname) Object.assign(out, sockname)
        return 0
      }
    }
    handle.ref()
    handles.set(key, { server, handle })
    return handle
  }

  /**
   * @param {any} message { key, seq, data }
   * @param {any} clientHandle the connection's socket handle
   */
  function takeConnection (message, clientHandle) {
    const entry = handles.get(message.key)
    const server = entry?.server
    let ok = entry !== undefined && clientHandle != null && server._handle === entry.handle
    // A server at its maxConnections declines, as under Node's primary; the gate sets it to -1.
    if (ok && server.maxConnections != null && server._connections >= server.maxConnections) ok = false
    tell(protocol.fromAgent('took', { seq: message.seq, ok }))
    if (!ok) {
      clientHandle?.close?.()
      return
    }
    expected = clientHandle
    entry.handle.onconnection(0, clientHandle)
    const socket = made
    expected = made = null
    if (socket === null) return
    socket.once('close', countClosed)
    // The daemon read these to pick this worker: they come first in the socket's stream.
    if (typeof message.data === 'string' && message.data.length > 0) socket.unshift(Buffer.from(message.data, 'base64'))
  }

  function countClosed () {
    closedSince++
    if (reportTimer !== null) return
    reportTimer = setTimeout(() => {
      reportTimer = null
      const n = closedSince
      closedSince = 0
      tell(protocol.fromAgent('closed', { n }))
    }, REPORT_MS)
    reportTimer.unref()
  }

  if (sticky) watchHandshakes(tell)

  return {
    listened: (/** @type {any} */ message) => {
      const done = asked.get(message.seq)
      asked.delete(message.seq)
      if (done) done(message)
    },
    conn: takeConnection
  }
}

/**
 * socket.io's session ids are made by the worker that answers the handshake (a request with
 * `EIO=` and no `sid`); the daemon learns which worker that is from here, so the requests
 * that carry the sid come back to it. The id is read from the handshake's answer, the one
 * response of that request (`0{"sid":"..."`, short and never compressed), before it is sent.
 * @param {(message: unknown) => void} tell
 */
function watchHandshakes (tell) {
  dc.subscribe('http.server.request.start', (/** @type {any} */ { request, response }) => {
    const url = String(request.url)
    if (!/[?&]EIO=\d/.test(url) || /[?&]sid=/.test(url)) return
    const own = Object.prototype.hasOwnProperty.call(response, 'end')
    const end = response.end
    response.end = function (/** @type {any[]} */ ...args) {
      if (own) response.end = end
      else delete response.end
      const chunk = args[0]
      const text = typeof chunk === 'string' ? chunk.slice(0, 512) : Buffer.isBuffer(chunk) ? chunk.toString('latin1', 0, 512) : ''
      const sid = /"sid":"([A-Za-z0-9_-]{1,128})"/.exec(text)
      if (sid) tell(protocol.fromAgent('session', { sid: sid[1] }))
      return end.apply(this, args)
    }
  })
}

module.exports = { routeListens }
