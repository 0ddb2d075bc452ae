// @ts-check
// The daemon's socket: ws over a unix socket (design §5). Every request is decoded and
// validated before a handler sees it; every failure goes back as a coded error.
import { chmod, stat, unlink } from 'node:fs/promises'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { SupError, toSupError } from '../ipc/errors.js'
import { CLOSE_SLOW_CLIENT, CLOSE_SLOW_SUBSCRIBER, CLOSE_TOO_MANY_CONNECTIONS, IPC_LIMITS, decodeRequest, encodeError, encodeEvent, encodeResult } from '../ipc/protocol.js'
import { HANDLERS } from './handlers.js'
import { Outbox } from './outbox.js'

// require(), not import: an ESM import of a CommonJS package runs Node's export lexer first.
/** @type {typeof import('ws').WebSocketServer} */
const WebSocketServer = createRequire(import.meta.url)('ws').WebSocketServer

/** @typedef {import('ws').WebSocket} ServerWebSocket */

/**
 * @param {{ socketPath: string, logger: import('pino').Logger, context: Omit<import('./handlers.js').HandlerContext, 'subscribe'> }} options
 */
export async function startServer ({ socketPath, logger, context }) {
  // A client that connects and never finishes its upgrade request is dropped after
  // IPC_LIMITS.handshakeMs (node's own default would hold it for a minute).
  const http = createServer({
    headersTimeout: IPC_LIMITS.handshakeMs,
    requestTimeout: IPC_LIMITS.handshakeMs,
    connectionsCheckingInterval: Math.min(1000, IPC_LIMITS.handshakeMs)
  }, (req, res) => {
    res.writeHead(426).end()
  })
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false, maxPayload: IPC_LIMITS.maxFrameBytes })
  /** @type {Map<ServerWebSocket, { topics: Set<string>, apps: Set<string> | null, outbox: Outbox }>} */
  const subscribers = new Map()

  /** Requests of each connection still being handled. */
  const inFlight = new WeakMap()

  /** When each connection last sent a request (or connected), to find the idlest one. */
  const lastActive = new WeakMap()

  wss.on('connection', (/** @type {ServerWebSocket} */ ws) => {
    ws.on('error', (/** @type {Error} */ err) => logger.debug({ err }, 'client socket error'))
    if (wss.clients.size > IPC_LIMITS.maxConnections) {
      // A new client (the CLI a user just typed) beats one that holds a connection and does
      // nothing with it; with no idle connection to close, the new one is refused instead.
      const idle = idlestConnection(ws)
      const refused = idle ?? ws
      logger.warn({ limit: IPC_LIMITS.maxConnections, evicted: idle !== null }, idle ? 'too many connections to the socket; closed the idlest' : 'too many connections to the socket; refused one')
      refused.close(CLOSE_TOO_MANY_CONNECTIONS, 'too many connections')
      if (!idle) return
    }
    inFlight.set(ws, 0)
    lastActive.set(ws, performance.now())
    ws.on('close', () => subscribers.delete(ws))
    ws.on('message', (/** @type {Buffer} */ data, /** @type {boolean} */ isBinary) => {
      // A connection being closed (too slow, evicted) gets no more work done for it.
      if (ws.readyState !== ws.OPEN) return
      lastActive.set(ws, performance.now())
      if (isBinary) {
        send(ws, encodeError(null, new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'binary frames are not accepted' })))
        return
      }
      handleRequest(ws, data.toString())
    })
  })

  /**
   * The open connection, other than `except`, that has waited longest since its last request,
   * with no request being handled and no event subscription (monit, logs -f); or null.
   * @param {ServerWebSocket} except
   * @returns {ServerWebSocket | null}
   */
  function idlestConnection (except) {
    let found = null
    let since = Infinity
    for (const ws of wss.clients) {
      if (ws === except || ws.readyState !== ws.OPEN || subscribers.has(ws) || inFlight.get(ws) !== 0) continue
      const at = lastActive.get(ws) ?? 0
      if (at < since) {
        since = at
        found = ws
      }
    }
    return found
  }

  /**
   * @param {ServerWebSocket} ws
   * @param {string} text
   */
  async function handleRequest (ws, text) {
    /** @type {number | null} */
    let id = null
    let counted = false
    try {
      const request = decodeRequest(text)
      id = request.id
      if (inFlight.get(ws) >= IPC_LIMITS.maxInFlight) {
        throw new SupError('SUP_ERR_IPC_TOO_MANY_REQUESTS', { limit: IPC_LIMITS.maxInFlight })
      }
      inFlight.set(ws, inFlight.get(ws) + 1)
      counted = true
      const ctx = {
        ...context,
        subscribe: (/** @type {string[]} */ topics, /** @type {string[] | undefined} */ apps) => {
          const outbox = subscribers.get(ws)?.outbox ?? createOutbox(ws)
          subscribers.set(ws, { topics: new Set(topics), apps: apps && apps.length > 0 ? new Set(apps) : null, outbox })
        }
      }
      // Until the dump is read (and a crash recovered from) only hello is answered.
      if (request.method !== 'hello') await context.ready
      const changes = context.persistence?.generation
      const result = await HANDLERS[request.method](request.params, ctx)
      // A change made while the request ran is on disk before the caller hears it is done;
      // a request that changed nothing (ls, ping) does not wait for a write.
      if (context.persistence && context.persistence.generation !== changes) await context.persistence.idle()
      send(ws, encodeResult(id, result))
    } catch (err) {
      const supErr = toSupError(err)
      if (supErr.code === 'SUP_ERR_INTERNAL_ERROR') logger.error({ err }, 'request failed')
      const requestId = /** @type {any} */ (err)?.requestId
      send(ws, encodeError(id ?? (Number.isInteger(requestId) ? requestId : null), supErr))
    } finally {
      if (counted) inFlight.set(ws, inFlight.get(ws) - 1)
    }
  }

  /**
   * Answer a request. Responses are never dropped, so a client that sends and never reads
   * is disconnected once IPC_LIMITS.maxBufferedBytes of them wait for it.
   * @param {ServerWebSocket} ws
   * @param {string} frame
   */
  function send (ws, frame) {
    if (ws.readyState !== ws.OPEN) return
    if (ws.bufferedAmount > IPC_LIMITS.maxBufferedBytes) {
      subscribers.delete(ws)
      logger.warn({ buffered: ws.bufferedAmount }, 'a client stopped reading its answers; disconnected it')
      ws.close(CLOSE_SLOW_CLIENT, 'client too slow')
      return
    }
    ws.send(frame)
  }

  /**
   * The subscriber's flow control (daemon/outbox.js): bounded queues, never a wait.
   * @param {ServerWebSocket} ws
   */
  function createOutbox (ws) {
    return new Outbox({
      send: (frame, done) => {
        if (ws.readyState === ws.OPEN) ws.send(frame, () => done())
      },
      disconnect: () => {
        subscribers.delete(ws)
        logger.warn('a subscriber fell too far behind the event stream; disconnected it')
        ws.close(CLOSE_SLOW_SUBSCRIBER, 'subscriber too slow')
      }
    })
  }

  /**
   * @param {string} topic
   * @param {{ name?: string, app?: string, id?: number }} data
   */
  function publish (topic, data) {
    if (subscribers.size === 0) return
    let frame = null
    for (const sub of subscribers.values()) {
      if (!sub.topics.has(topic)) continue
      if (sub.apps && !sub.apps.has(String(data.name ?? data.app)) && !sub.apps.has(String(data.id))) continue
      frame ??= encodeEvent(topic, data)
      sub.outbox.push(frame, topic === 'metrics' ? String(data.id) : null)
    }
  }

  /** Bind the socket at its path; the inode tells later whether the file is still ours. */
  const bind = async () => {
    await unlink(socketPath).catch(() => {})
    // The socket is created 0600, never for a moment open to other users: bind() happens
    // inside listen(), under this umask (the chmod after it is for umask-less platforms).
    await new Promise((resolve, reject) => {
      http.once('error', reject)
      const umask = process.umask(0o177)
      try {
        http.listen(socketPath, () => {
          http.off('error', reject)
          resolve(undefined)
        })
      } finally {
        process.umask(umask)
      }
    })
    await chmod(socketPath, 0o600)
    socketIno = (await stat(socketPath)).ino
  }
  /** @type {number | null} */
  let socketIno = null
  await bind()

  return {
    publish,
    /**
     * Whether any subscriber takes events of `topic`.
     * @param {string} topic
     */
    wants (topic) {
      for (const sub of subscribers.values()) if (sub.topics.has(topic)) return true
      return false
    },
    /** The inode of the socket file this daemon listens on. */
    socketIno: () => socketIno,
    /**
     * Listen again at the socket's path, after the file was deleted (daemon/home-guard.js).
     * Connected clients keep their connections; new ones reach the new file.
     */
    async rebind () {
      await new Promise((resolve) => {
        http.close(() => resolve(undefined))
        // close() waits for every connection to end; the listening handle is gone at once.
        setImmediate(resolve)
      })
      await bind()
    },
    /** Close every connection and the socket. */
    async close () {
      for (const ws of wss.clients) ws.close(1001, 'daemon shutting down')
      await new Promise((resolve) => wss.close(() => resolve(undefined)))
      await new Promise((resolve) => http.close(() => resolve(undefined)))
      for (const ws of wss.clients) ws.terminate()
      await unlink(socketPath).catch(() => {})
    }
  }
}
