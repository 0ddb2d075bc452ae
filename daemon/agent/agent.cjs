'use strict'
// sup's agent, loaded with --require into every node worker. It must never change what the
// app sees: no output, no listener that keeps the process alive, and no patched global but
// one, only where the daemon handed the worker sockets (below). In a cluster app with sticky
// or least-conn two more, each where Node's own primary would stand (routed-listen.cjs):
// node:cluster's _getServer (the worker's listen, answered by the daemon's router), and for
// sticky the `end` of a socket.io handshake's one response (the session id it carries).
// A fork-mode worker tells the daemon when its first server listens (a cluster primary sees
// 'listening' itself). A cluster worker, and a fork-mode worker on sockets the daemon holds,
// can be drained (and a cluster worker gated) by the daemon; see docs/reload.md for why each
// step is done the way it is.
const dc = require('node:diagnostics_channel')
// The messages both ways, shared with the daemon (dependency-free, like this file).
const protocol = require('../../ipc/agent-protocol.cjs')

const LISTEN = 'tracing:net.server.listen:asyncEnd'

// A cluster app routed by the daemon (sticky, least-conn): its listens go through sup's
// router (routed-listen.cjs). Removed before the app runs, as SUP_AGENT_METRICS_MS is.
const ROUTE = process.env.SUP_AGENT_ROUTE
delete process.env.SUP_AGENT_ROUTE

/** @param {unknown} message */
const tell = (message) => {
  // A callback keeps a closed channel from turning into an 'error' event in the app.
  if (process.connected && process.send) process.send(message, undefined, {}, () => {})
}

if (typeof process.send !== 'function') {
  // Not started by sup (or started without an IPC channel): nothing to report to.
} else if (!isClusterWorker()) {
  const onListen = () => {
    dc.unsubscribe(LISTEN, onListen)
    tell(protocol.fromAgent('listening'))
  }
  dc.subscribe(LISTEN, onListen)
  if (adoptHeldSockets()) superviseWorker()
} else {
  superviseWorker()
}

/**
 * Fork mode with `listen`: the daemon holds the app's sockets and passes them as fds 3, 4, …
 * (SUP_LISTEN says which serves which port or path). A plain `server.listen(3000)` then
 * listens on the inherited socket instead of binding its own, so every generation of the app
 * accepts from the same kernel queue and a reload loses no connection. This wraps
 * net.Server.prototype.listen (http, https and express servers all go through it); calls
 * for ports or paths the daemon did not hand over, and listen({ fd }) / listen(handle), are
 * passed on untouched.
 * @returns {boolean} whether there were sockets to adopt
 */
function adoptHeldSockets () {
  const raw = process.env.SUP_LISTEN
  delete process.env.SUP_LISTEN
  if (!raw) return false
  /** @type {Array<{ fd: number, port?: number, path?: string }>} */
  let held
  try {
    held = JSON.parse(raw)
  } catch {
    return false
  }
  if (!Array.isArray(held) || held.length === 0) return false
  const net = require('node:net')
  const path = require('node:path')
  const listen = net.Server.prototype.listen
  /** @param {any[]} args */
  const heldFdFor = (args) => {
    const first = args[0]
    let port = null
    let file = null
    if (first !== null && typeof first === 'object') {
      if (first.fd != null || first.handle != null || first._handle != null) return null
      if (first.path != null) file = String(first.path)
      else if (first.port != null) port = Number(first.port)
    } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
      port = Number(first)
    } else if (typeof first === 'string') {
      file = first
    }
    const entry = port !== null && port > 0
      ? held.find((h) => h.port === port)
      : file !== null ? held.find((h) => h.path !== undefined && h.path === path.resolve(file)) : undefined
    return entry === undefined ? null : entry.fd
  }
  net.Server.prototype.listen = function (/** @type {any[]} */ ...args) {
    const fd = heldFdFor(args)
    if (fd === null) return listen.apply(this, /** @type {any} */ (args))
    const callback = typeof args[args.length - 1] === 'function' ? args[args.length - 1] : undefined
    return callback ? listen.call(this, { fd }, callback) : listen.call(this, { fd })
  }
  return true
}

function superviseWorker () {
  /** Servers that have listened in this worker (pruned of closed ones as new ones listen). */
  const servers = new Set()
  /** Connections accepted by any of them, until they close. */
  const sockets = new Set()
  /** A TLS connection's raw socket → the TLSSocket HTTP runs on (learnt from its requests). */
  const wrappers = new WeakMap()
  /** While gated: server → its own maxConnections, to give back when the gate opens. */
  const held = new Map()
  let gated = false
  /** @type {null | { servers: Set<any>, quiet: Map<any, { since: number, bytes: number }>, idleMs: number, timer: any, lingered: boolean }} */
  let draining = null

  /** @this {any} */
  const onSocketClose = function () {
    sockets.delete(this)
    if (draining !== null) checkLingering()
  }

  dc.subscribe(LISTEN, (/** @type {any} */ { server }) => {
    for (const s of servers) if (!s.listening) servers.delete(s)
    servers.add(server)
    if (gated) hold(server)
  })
  dc.subscribe('net.server.socket', (/** @type {any} */ { socket }) => {
    sockets.add(socket)
    socket.once('close', onSocketClose)
  })
  dc.subscribe('http.server.request.start', (/** @type {any} */ { response, socket, server }) => {
    if (socket._parent != null) wrappers.set(socket._parent, socket)
    if (draining !== null && draining.servers.has(server)) {
      // Answer this one, and tell the client to take its next request elsewhere.
      response.shouldKeepAlive = false
      touch(socket._parent ?? socket)
    }
  })
  const routed = ROUTE && isClusterWorker() ? require('./routed-listen.cjs').routeListens(tell, { sticky: ROUTE === 'sticky' }) : null
  /** @type {import('../../ipc/agent-protocol.cjs').AgentHandlers} the daemon's messages, by act */
  const onDaemon = {
    ...routed,
    drain: (/** @type {any} */ message) => drain(Number(message.idleMs) || 1000),
    // The daemon's answer to 'drained' (or 'lingering'): by the time it reaches us, every
    // connection the primary handed us before it saw our servers close has been answered (declined).
    sync: (/** @type {any} */ message) => tell(protocol.fromAgent('synced', { after: message.after === 'lingering' ? 'lingering' : 'drained' })),
    gate: closeGate,
    open: openGate,
    probe: (/** @type {any} */ message) => probe(message)
  }
  // 'internalMessage' carries messages whose cmd starts with NODE_: the app's own
  // process.on('message') never sees them, and listening here keeps nothing alive.
  process.on(/** @type {any} */ ('internalMessage'), (/** @type {unknown} */ message, /** @type {unknown} */ handle) => {
    protocol.dispatch(onDaemon, protocol.agentActOf(message), message, handle ?? undefined)
  })

  // Probe: the daemon cannot reach this worker alone through a port it shares with others
  // (the primary's, or a held socket), so the check comes here and goes to the worker's own
  // server: an http probe is a GET injected as a connection ('connection' takes any Duplex),
  // answered by the app's handler like any request; a tcp probe asks that a server listens.
  // A worker that hangs never answers, and the daemon's timeout fails the check.
  /** @param {{ seq: unknown, type: string, port: unknown, path: unknown }} message */
  function probe ({ seq, type, port, path }) {
    const http = require('node:http')
    const wanted = typeof port === 'number' ? port : null
    const listening = [...servers].filter((s) => s.listening && (wanted === null || s.address()?.port === wanted))
    const server = type === 'http' ? listening.find((s) => s instanceof http.Server) : listening[0]
    const answer = (/** @type {Record<string, unknown>} */ fields) => tell(protocol.fromAgent('probed', { seq, ...fields }))
    if (server === undefined) return answer({ error: wanted === null ? `no ${type === 'http' ? 'HTTP ' : ''}server listening in the worker` : `no ${type === 'http' ? 'HTTP ' : ''}server listening on port ${wanted} in the worker` })
    if (type !== 'http') return answer({ status: 0 })
    injectGet(server, String(path), answer)
  }

  // Gate: until the daemon says the worker is ready (wait_ready), the worker declines every
  // connection the primary hands it, and the primary passes it to another worker. Node's
  // cluster child does exactly that for a server at its maxConnections; -1 means "always".
  function closeGate () {
    gated = true
    for (const server of servers) if (server.listening) hold(server)
  }

  /** @param {any} server */
  function hold (server) {
    if (held.has(server) || !isRoundRobin(server)) return
    held.set(server, { own: Object.prototype.hasOwnProperty.call(server, 'maxConnections'), value: server.maxConnections })
    server.maxConnections = -1
  }

  function openGate () {
    gated = false
    for (const [server, saved] of held) {
      if (server.maxConnections !== -1) continue
      if (saved.own) server.maxConnections = saved.value
      else delete server.maxConnections
    }
    held.clear()
  }

  // Drain: stop taking connections, let requests in flight finish, move keep-alive clients
  // off with `Connection: close` on their next response, and close only connections that
  // have been quiet for idleMs. Closing an idle keep-alive connection at once races the
  // client's next request on it (the reset PM2 users see); server.close() does that on
  // Node >= 19, so the listening handle is closed with net.Server's own close instead.
  /** @param {number} idleMs */
  function drain (idleMs) {
    if (draining !== null) return
    openGate()
    const net = require('node:net')
    const targets = [...servers].filter((s) => s.listening)
    draining = { servers: new Set(targets), quiet: new Map(), idleMs, timer: null, lingered: false }
    for (const raw of sockets) {
      if (!draining.servers.has(raw.server)) continue
      const res = httpSocketOf(raw)?._httpMessage
      if (res && !res.headersSent) res.shouldKeepAlive = false
      touch(raw)
    }
    dc.subscribe('http.server.response.finish', onResponseFinish)
    draining.timer = setInterval(sweep, Math.max(25, Math.floor(idleMs / 4)))
    draining.timer.unref()
    let open = targets.length
    const closed = () => { if (--open === 0) drained() }
    for (const server of targets) net.Server.prototype.close.call(server, closed)
    if (targets.length === 0) drained()
    else checkLingering()
  }

  // Long-lived connections (upgraded: WebSocket; Server-Sent Events streams) never drain by
  // themselves. Once they are all that is left on the servers being drained (every request in
  // flight done, every idle keep-alive connection closed), the daemon is told, and tells the
  // app to shut down at once instead of after kill_timeout (docs/realtime.md). Once a drain.
  function checkLingering () {
    if (draining === null || draining.lingered) return
    let connections = 0
    for (const raw of sockets) {
      // Plain net servers' connections are the app's, and neither count nor wait.
      if (!draining.servers.has(raw.server) || typeof raw.server.closeIdleConnections !== 'function') continue
      if (!isLongLived(httpSocketOf(raw))) return
      connections++
    }
    if (connections === 0) return
    draining.lingered = true
    tell(protocol.fromAgent('lingering', { connections }))
  }

  /**
   * An upgraded connection (its parser is gone), or one streaming Server-Sent Events.
   * @param {any} http the socket HTTP runs on, or null while unknown
   */
  function isLongLived (http) {
    if (http === null) return false
    if (http.parser === null) return true
    const res = http._httpMessage
    if (res == null || res.headersSent !== true) return false
    // The header as sent: writeHead(status, headers) does not keep them for getHeader().
    return typeof res._header === 'string' && /\r\ncontent-type:[ \t]*text\/event-stream/i.test(res._header)
  }

  /** @param {any} message */
  function onResponseFinish ({ socket, server }) {
    if (draining !== null && draining.servers.has(server)) touch(socket._parent ?? socket)
  }

  /** @param {any} raw */
  function touch (raw) {
    draining?.quiet.set(raw, { since: Date.now(), bytes: raw.bytesRead })
  }

  /**
   * The socket HTTP runs on: the raw socket, or its TLSSocket; null while unknown.
   * @param {any} raw
   */
  function httpSocketOf (raw) {
    const wrapper = wrappers.get(raw)
    if (wrapper !== undefined) return wrapper
    return raw.parser !== undefined ? raw : null
  }

  function sweep () {
    if (draining === null) return
    const now = Date.now()
    for (const raw of sockets) {
      if (!draining.servers.has(raw.server)) continue
      // Plain net servers: their connections are the app's to end.
      if (typeof raw.server.closeIdleConnections !== 'function') continue
      const http = httpSocketOf(raw)
      // Upgraded (WebSocket) connections are the app's too; busy ones finish first.
      if (http !== null && (http.parser === null || http._httpMessage)) continue
      const seen = draining.quiet.get(raw)
      if (seen === undefined || raw.bytesRead !== seen.bytes) {
        touch(raw)
        continue
      }
      if (now - seen.since >= draining.idleMs) (http ?? raw).destroy()
    }
    checkLingering()
  }

  function drained () {
    if (draining === null) return
    clearInterval(draining.timer)
    dc.unsubscribe('http.server.response.finish', onResponseFinish)
    draining.quiet.clear()
    tell(protocol.fromAgent('drained'))
  }
}

/**
 * A GET as one connection handed to the server: only the status line of the answer is read.
 * @param {any} server an http.Server
 * @param {string} path
 * @param {(result: { status: number } | { error: string }) => void} done
 */
function injectGet (server, path, done) {
  const { Duplex } = require('node:stream')
  let out = ''
  let settled = false
  /** @param {{ status: number } | { error: string }} result */
  const finish = (result) => {
    if (settled) return
    settled = true
    done(result)
    conn.destroy()
  }
  const conn = new Duplex({
    read () {},
    write (chunk, encoding, callback) {
      out += chunk.toString('latin1')
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(out)
      if (status) finish({ status: Number(status[1]) })
      else if (out.includes('\r\n')) finish({ error: 'the answer was not HTTP' })
      callback()
    },
    final (callback) {
      finish({ error: 'the connection closed without an answer' })
      callback()
    }
  })
  // What http.Server asks of a net.Socket beyond a Duplex.
  Object.assign(conn, { remoteAddress: '127.0.0.1', remotePort: 0, setTimeout: () => conn, setNoDelay: () => conn, setKeepAlive: () => conn })
  conn.on('error', () => {})
  server.emit('connection', conn)
  conn.push(`GET ${path} HTTP/1.1\r\nhost: localhost\r\nuser-agent: sup-probe\r\nconnection: close\r\n\r\n`)
}

function isClusterWorker () {
  return Boolean(/** @type {any} */ (require('node:cluster')).isWorker)
}

/**
 * In round-robin mode a worker's server holds a stand-in handle (a plain object) from the primary.
 * @param {any} server
 */
function isRoundRobin (server) {
  const handle = server._handle
  return handle != null && Object.getPrototypeOf(handle) === Object.prototype
}

// --- metrics: event-loop delay, heap and active handles, once per sampling interval -----
// The daemon passes the interval in SUP_AGENT_METRICS_MS; the variable is removed before the
// app runs (as node:cluster does with NODE_UNIQUE_ID), so the app and its children never
// see it. The timer is unref'd: a worker with nothing else to do still exits.
;(function startMetrics () {
  const interval = Number(process.env.SUP_AGENT_METRICS_MS)
  delete process.env.SUP_AGENT_METRICS_MS
  if (!(interval > 0) || typeof process.send !== 'function') return
  const { monitorEventLoopDelay } = require('node:perf_hooks')
  const v8 = require('node:v8')
  // The histogram's timer wakes the worker every RESOLUTION_MS even when the app idles, and
  // records how late it fired (we report the lateness). At 20 ms that was 0.57 % of a core per
  // idle worker (17 ticks in 30 s, a bare process with only the histogram), 2.5 % for 8 idle
  // workers: ten times what the daemon itself spends supervising them. At 100 ms: 0.1 %. A
  // stall of 100 ms or more is always seen; a shorter one is seen when a tick falls inside it,
  // which for an app that blocks often is every few ticks (docs/monitoring.md).
  const RESOLUTION_MS = 100
  const delay = monitorEventLoopDelay({ resolution: RESOLUTION_MS })
  delay.enable()
  const ms = (/** @type {number} */ ns) => Math.max(0, Math.round(ns / 1e4 - RESOLUTION_MS * 100) / 100)
  const noop = () => {}
  const report = () => {
    if (!process.connected || typeof process.send !== 'function') return
    const heap = v8.getHeapStatistics()
    const loop = delay.count > 0
      ? { p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max) }
      : { p50: 0, p99: 0, max: 0 }
    delay.reset()
    process.send(protocol.fromAgent('metrics', {
      loop,
      heap: { used: heap.used_heap_size, total: heap.total_heap_size },
      handles: process.getActiveResourcesInfo().length
    }), undefined, {}, noop)
  }
  // On the wall-clock multiples of the interval, like every other worker's agent and the
  // daemon's sampler: the daemon then wakes once for all reports instead of once for each.
  const arm = () => {
    setTimeout(() => {
      arm()
      report()
    }, interval - (Date.now() % interval)).unref()
  }
  arm()
})()
