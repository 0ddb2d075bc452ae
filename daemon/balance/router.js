// @ts-check
// sup's own connection routing, for cluster apps with `sticky` or `balance: least-conn`
// (docs/realtime.md). Node's primary hands connections out round-robin or not at all, and
// fixes that once per process; these apps need another choice per connection, so the daemon
// listens for them itself: a worker's `server.listen()` reaches it as the agent's `listen`
// (daemon/agent/routed-listen.cjs), the daemon binds the port once per app with
// `pauseOnConnect`, and gives each connection's socket to the worker it picks with
// `worker.send(message, handle)`, as Node's round-robin primary does (the worker answers
// `took`; a worker that declines, draining or gated, or dies first, passes it to another).
// Sticky apps get their first request's head read first (request-key.js) and the bytes go
// with the socket; least-conn reads nothing.
import net from 'node:net'
import { toAgent } from '../../ipc/agent-protocol.js'
import { headComplete, readHead, routingKey } from './request-key.js'
import { leastConnected } from './pick.js'
import { Sessions } from './sessions.js'

/** A sticky connection that sends no request head within this is closed (Node's http headersTimeout is 60 s). */
export const HEAD_TIMEOUT_MS = 30_000
/** Connections waiting for a worker of the app; more are refused (closed). */
export const MAX_QUEUED = 4096
/** When every worker declined a connection (all gated or draining), it is offered again after this. */
const RETRY_MS = 50
/** libuv's UV_TCP_IPV6ONLY in a listen's flags */
const IPV6_ONLY = 1

/**
 * @typedef {object} RoutedWorker what the router needs of a worker process
 * @property {number} id
 * @property {(message: unknown, handle: unknown, onError: (error: Error | null) => void) => void} send
 *
 * @typedef {object} RouteOptions an app's routing, from its config
 * @property {boolean} sticky
 * @property {string | null} cookie
 * @property {boolean} trustProxy
 *
 * @typedef {object} Member a worker in the router
 * @property {RoutedWorker} worker
 * @property {AppRoutes} app
 * @property {number} open connections handed to it and not yet reported closed
 * @property {Map<number, Pending>} inflight handed, not yet answered
 * @property {Set<Listener>} listeners
 * @property {boolean} gone
 *
 * @typedef {object} Pending a connection on its way to a worker
 * @property {any} handle the daemon's copy of its socket handle (libuv's TCP), closed once a worker took it
 * @property {net.Socket | null} socket its stream, when the daemon read from it (sticky)
 * @property {string} data the bytes the daemon read, base64
 * @property {string | null} key sticky key
 * @property {Set<Member>} declined
 * @property {Listener} listener the port it came in on
 *
 * @typedef {object} Listener one port of one app
 * @property {string} key address:port:addressType:index, as the worker asked
 * @property {AppRoutes} app
 * @property {net.Server} server
 * @property {string | net.AddressInfo | null} sockname once bound
 * @property {Member[]} members listening through it, in the order they joined
 * @property {Array<{ member: Member, seq: number }>} waiting listens to answer once bound
 * @property {Pending[]} queue connections waiting for a worker
 * @property {any} retry
 *
 * @typedef {object} AppRoutes
 * @property {string} name
 * @property {RouteOptions} options
 * @property {Map<string, Listener>} listeners
 * @property {Sessions<Member>} sessions
 * @property {number} turn
 * @property {number} members workers joined and not gone
 */

/**
 * Whether an app's connections go through the router.
 * @param {Pick<import('../../ipc/app-config.js').AppConfig, 'exec_mode' | 'sticky' | 'balance'>} config
 */
export function routesConnections (config) {
  return config.exec_mode === 'cluster' && (config.sticky || config.balance === 'least-conn')
}

/**
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @returns {RouteOptions}
 */
export function routeOptions (config) {
  return { sticky: config.sticky, cookie: config.sticky_cookie, trustProxy: config.trust_proxy }
}

const noop = () => {}

export class Router {
  /**
   * @param {{ now?: () => number }} [options]
   */
  constructor ({ now = Date.now } = {}) {
    this.now = now
    /** @type {Map<string, AppRoutes>} */
    this.apps = new Map()
    this.seq = 0
  }

  /**
   * A worker of a routed app joins; what it says goes to the returned handlers, and `leave`
   * when it is gone (exit or a closed channel).
   * @param {import('../../ipc/app-config.js').AppConfig} config
   * @param {RoutedWorker} worker
   */
  join (config, worker) {
    let app = this.apps.get(config.name)
    if (app === undefined) {
      app = { name: config.name, options: routeOptions(config), listeners: new Map(), sessions: new Sessions(), turn: 0, members: 0 }
      this.apps.set(config.name, app)
    }
    app.options = routeOptions(config)
    app.members++
    /** @type {Member} */
    const member = { worker, app, open: 0, inflight: new Map(), listeners: new Set(), gone: false }
    return {
      listen: (/** @type {any} */ message) => this.listen(member, message),
      unlisten: (/** @type {any} */ message) => this.unlisten(member, message),
      took: (/** @type {any} */ message) => this.took(member, message),
      closed: (/** @type {any} */ message) => { member.open = Math.max(0, member.open - (Number.isSafeInteger(message.n) && message.n > 0 ? message.n : 0)) },
      session: (/** @type {any} */ message) => this.session(member, message),
      leave: () => this.leave(member),
      /** open connections, for tests and describe */
      get open () { return member.open }
    }
  }

  /**
   * @param {Member} member
   * @param {{ seq?: unknown, address?: unknown, port?: unknown, addressType?: unknown, index?: unknown, flags?: unknown, backlog?: unknown }} message
   */
  listen (member, { seq, address, port, addressType, index, flags, backlog }) {
    if (member.gone || !Number.isSafeInteger(seq)) return
    const answer = (/** @type {Record<string, unknown>} */ fields) => member.worker.send(toAgent('listened', { seq, ...fields }), undefined, noop)
    const valid = (address === null || (typeof address === 'string' && address.length <= 255)) &&
      Number.isInteger(port) && /** @type {number} */ (port) >= 0 && /** @type {number} */ (port) <= 65535 &&
      (addressType === 4 || addressType === 6) && Number.isInteger(index) && /** @type {number} */ (index) >= 0
    if (!valid) return answer({ errno: -22 })
    const key = `${address}:${port}:${addressType}:${index}`
    const { app } = member
    let listener = app.listeners.get(key)
    if (listener === undefined) {
      listener = this.bind(app, key, {
        host: /** @type {string | null} */ (address) ?? undefined,
        port: /** @type {number} */ (port),
        ipv6Only: Boolean(Number(flags) & IPV6_ONLY),
        ...(Number.isInteger(backlog) && /** @type {number} */ (backlog) > 0 ? { backlog: /** @type {number} */ (backlog) } : {})
      })
    }
    if (listener.members.includes(member)) return answer({ errno: -98 })
    listener.members.push(member)
    member.listeners.add(listener)
    if (listener.sockname !== null) {
      answer({ key, sockname: listener.sockname })
      this.flush(listener)
    } else {
      listener.waiting.push({ member, seq: /** @type {number} */ (seq) })
    }
  }

  /**
   * @param {AppRoutes} app
   * @param {string} key
   * @param {net.ListenOptions} options
   * @returns {Listener}
   */
  bind (app, key, options) {
    const server = net.createServer({ pauseOnConnect: true })
    /** @type {Listener} */
    const listener = { key, app, server, sockname: null, members: [], waiting: [], queue: [], retry: null }
    app.listeners.set(key, listener)
    server.on('connection', (socket) => this.accept(listener, socket))
    server.once('error', (/** @type {NodeJS.ErrnoException} */ err) => {
      const errno = typeof err.errno === 'number' ? err.errno : -98
      for (const { member, seq } of listener.waiting) member.worker.send(toAgent('listened', { seq, errno }), undefined, noop)
      for (const member of listener.members) member.listeners.delete(listener)
      listener.waiting = []
      listener.members = []
      this.close(listener)
    })
    server.listen(options, () => {
      listener.sockname = server.address()
      // Least-conn reads nothing: the accepted handle goes on as it is, as Node's round-robin
      // does (lib/internal/cluster/round_robin_handle.js), without a net.Socket built and torn
      // down around it in the daemon for every connection.
      if (!app.options.sticky) /** @type {any} */ (server)._handle.onconnection = (/** @type {number} */ err, /** @type {any} */ handle) => { if (!err && handle) this.route(pendingOf(listener, handle, null, '', null)) }
      for (const { member, seq } of listener.waiting) {
        if (!member.gone) member.worker.send(toAgent('listened', { seq, key, sockname: listener.sockname }), undefined, noop)
      }
      listener.waiting = []
      this.flush(listener)
    })
    return listener
  }

  /**
   * @param {Listener} listener
   * @param {net.Socket} socket
   */
  accept (listener, socket) {
    socket.on('error', noop)
    const { options } = listener.app
    if (!options.sticky) return this.route(pendingOf(listener, /** @type {any} */ (socket)._handle, socket, '', null))
    readFirstBytes(socket, (bytes) => {
      const key = routingKey(readHead(bytes), options, socket.remoteAddress)
      this.route(pendingOf(listener, /** @type {any} */ (socket)._handle, socket, bytes.toString('base64'), key))
    })
  }

  /**
   * Give a connection to a worker: its session's, else the one with the fewest connections.
   * @param {Pending} pending
   */
  route (pending) {
    const { listener } = pending
    if (listener.app.listeners.get(listener.key) !== listener || pending.socket?.destroyed === true || !pending.handle) return drop(pending)
    const { app } = listener
    const allowed = (/** @type {Member} */ m) => !pending.declined.has(m)
    let member = null
    if (pending.key !== null) {
      const holder = app.sessions.get(pending.key, this.now())
      if (holder !== undefined && listener.members.includes(holder) && allowed(holder)) member = holder
    }
    member ??= leastConnected(listener.members, app.turn++, allowed)
    if (member === null) return this.hold(pending)
    const seq = ++this.seq
    const chosen = member
    chosen.open++
    chosen.inflight.set(seq, pending)
    const message = toAgent('conn', { key: listener.key, seq, data: pending.data })
    chosen.worker.send(message, pending.handle, (err) => { if (err) this.took(chosen, { seq, ok: false }) })
  }

  /**
   * No worker to take it now: keep it until one listens (or, when all declined it, a moment).
   * @param {Pending} pending
   */
  hold (pending) {
    const { listener } = pending
    if (listener.queue.length >= MAX_QUEUED) return drop(pending)
    listener.queue.push(pending)
    if (pending.declined.size > 0 && listener.retry === null) {
      listener.retry = setTimeout(() => {
        listener.retry = null
        for (const p of listener.queue) p.declined.clear()
        this.flush(listener)
      }, RETRY_MS)
    }
  }

  /** @param {Listener} listener */
  flush (listener) {
    const queued = listener.queue
    listener.queue = []
    for (const pending of queued) this.route(pending)
  }

  /**
   * @param {Member} member
   * @param {{ seq?: unknown, ok?: unknown }} message
   */
  took (member, { seq, ok }) {
    const pending = typeof seq === 'number' ? member.inflight.get(seq) : undefined
    if (pending === undefined) return
    member.inflight.delete(/** @type {number} */ (seq))
    if (ok === true) {
      // The worker has its own copy of the socket; ours goes (no FIN: the worker's stays open).
      drop(pending)
      if (pending.key !== null && !pending.key.startsWith('sid:')) member.app.sessions.set(pending.key, member, this.now())
      return
    }
    member.open = Math.max(0, member.open - 1)
    pending.declined.add(member)
    this.route(pending)
  }

  /**
   * @param {Member} member
   * @param {{ sid?: unknown }} message
   */
  session (member, { sid }) {
    if (member.gone || !member.app.options.sticky || typeof sid !== 'string' || !/^[A-Za-z0-9_-]{1,128}$/.test(sid)) return
    member.app.sessions.set(`sid:${sid}`, member, this.now())
  }

  /**
   * @param {Member} member
   * @param {{ key?: unknown }} message
   */
  unlisten (member, { key }) {
    const listener = typeof key === 'string' ? member.app.listeners.get(key) : undefined
    if (listener === undefined || !member.listeners.has(listener)) return
    this.part(member, listener)
  }

  /**
   * @param {Member} member
   * @param {Listener} listener
   */
  part (member, listener) {
    member.listeners.delete(listener)
    listener.members = listener.members.filter((m) => m !== member)
    listener.waiting = listener.waiting.filter((w) => w.member !== member)
    // As Node's round-robin handle: the port closes with the last worker listening on it.
    if (listener.members.length === 0) this.close(listener)
  }

  /** @param {Listener} listener */
  close (listener) {
    if (listener.app.listeners.get(listener.key) === listener) listener.app.listeners.delete(listener.key)
    clearTimeout(listener.retry)
    for (const pending of listener.queue) drop(pending)
    listener.queue = []
    listener.server.close()
  }

  /**
   * A worker is gone: its sessions are forgotten (their clients' next request goes to a live
   * worker at once) and the connections it had not answered go to another.
   * @param {Member} member
   */
  leave (member) {
    if (member.gone) return
    member.gone = true
    member.app.sessions.forget(member)
    const inflight = [...member.inflight.values()]
    member.inflight.clear()
    for (const listener of [...member.listeners]) this.part(member, listener)
    for (const pending of inflight) this.route(pending)
    // Kept while any worker of the app is: one that listens again finds its port here.
    if (--member.app.members === 0 && this.apps.get(member.app.name) === member.app) this.apps.delete(member.app.name)
  }
}

/**
 * @param {Listener} listener
 * @param {any} handle
 * @param {net.Socket | null} socket
 * @param {string} data
 * @param {string | null} key
 * @returns {Pending}
 */
function pendingOf (listener, handle, socket, data, key) {
  return { handle, socket, data, key, declined: new Set(), listener }
}

/**
 * Close the daemon's copy of a connection.
 * @param {Pending} pending
 */
function drop (pending) {
  if (pending.socket !== null) pending.socket.destroy()
  else pending.handle?.close()
}

/**
 * Read a connection's first bytes up to the end of its request head (or MAX_HEAD_BYTES), then
 * stop reading, so the rest stays in the kernel for the worker.
 * @param {net.Socket} socket paused (pauseOnConnect)
 * @param {(bytes: Buffer) => void} done
 */
function readFirstBytes (socket, done) {
  /** @type {Buffer[]} */
  const chunks = []
  const timer = setTimeout(() => socket.destroy(), HEAD_TIMEOUT_MS)
  const finish = () => {
    clearTimeout(timer)
    socket.off('data', onData)
    socket.off('close', onClose)
    socket.pause()
    // pause() alone lets the handle read on into the stream's buffer: stop it, and take what came.
    const handle = /** @type {any} */ (socket)._handle
    handle?.readStop()
    for (let more = socket.read(); more !== null; more = socket.read()) chunks.push(more)
    done(Buffer.concat(chunks))
  }
  const onData = (/** @type {Buffer} */ chunk) => {
    chunks.push(chunk)
    if (headComplete(Buffer.concat(chunks))) finish()
  }
  const onClose = () => clearTimeout(timer)
  socket.on('data', onData)
  socket.once('close', onClose)
  socket.resume()
}
