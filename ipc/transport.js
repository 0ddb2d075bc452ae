// @ts-check
// The client end of the socket: one ws connection over the daemon's unix socket, requests
// paired with responses by id, events handed to listeners.
import { EventEmitter } from 'node:events'
import { SupError } from './errors.js'
import { verifySocket } from './safe-fs.js'
import { closeError, decodeReply, encodeRequest } from './client-frames.js'
import { CLOSE_ABNORMAL, CLOSED, OPEN, UnixWebSocket } from './ws-client.js'

/**
 * Open a connection to the daemon's socket.
 * @param {string} socketPath
 * @returns {Promise<Connection>}
 */
export function connect (socketPath) {
  return new Promise((resolve, reject) => {
    // A socket another user put in our place would hear whatever we send (a start request
    // carries the whole environment): check it is our own before connecting.
    verifySocket(socketPath)
    const ws = new UnixWebSocket(socketPath)
    const onError = (/** @type {Error} */ err) => reject(err)
    ws.once('error', onError)
    ws.once('open', () => {
      ws.off('error', onError)
      resolve(new Connection(ws))
    })
  })
}

export class Connection extends EventEmitter {
  /** @param {UnixWebSocket} ws */
  constructor (ws) {
    super()
    this.ws = ws
    this.nextId = 1
    /** @type {Map<number, { resolve: (v: any) => void, reject: (e: Error) => void, method: string }>} */
    this.pending = new Map()
    ws.on('message', (data) => this.onMessage(data.toString()))
    ws.on('error', (err) => this.failAll(new SupError('SUP_ERR_IPC_CONNECTION_LOST', { reason: err.message })))
    /** Why the connection ended, for requests made after it did. @type {SupError | null} */
    this.closedWith = null
    /** A hello still under way that every answer waits for (afterHello). @type {Promise<unknown> | null} */
    this.greeting = null
    ws.on('close', (/** @type {number} */ code, /** @type {string} */ reason) => {
      this.closedWith = closeError(code, reason)
      this.failAll(this.closedWith)
      this.emit('close', code, reason)
    })
  }

  /**
   * Send a request; resolves with its result or rejects with the daemon's SupError.
   * @param {string} method
   * @param {Record<string, unknown>} [params]
   * @returns {Promise<any>}
   */
  request (method, params = {}) {
    const reply = this.send(method, params)
    const greeting = this.greeting
    if (!greeting) return reply
    // Sent at once, answered in order: hello's error, if any, is the one the caller sees.
    return greeting.then(() => reply, (err) => {
      reply.catch(() => {})
      throw err
    })
  }

  /**
   * Requests sent from now on need not wait for `hello`'s answer before they go: they go
   * right behind it (one round trip for both), and each answer waits for hello's.
   * @param {Promise<unknown>} hello
   */
  afterHello (hello) {
    this.greeting = hello
    hello.catch(() => {})
  }

  /**
   * Why the daemon is closing the connection, once its close frame has come and before the
   * socket has ended (a request made in between hears the daemon's reason, not "lost").
   * @returns {SupError | null}
   */
  closingWith () {
    const { closeCode, closeReason } = this.ws
    return closeCode === CLOSE_ABNORMAL ? null : closeError(closeCode, closeReason)
  }

  /**
   * @param {string} method
   * @param {Record<string, unknown>} params
   * @returns {Promise<any>}
   */
  send (method, params) {
    const id = this.nextId++
    return new Promise((resolve, reject) => {
      if (this.ws.readyState !== OPEN) {
        reject(this.closedWith ?? this.closingWith() ?? new SupError('SUP_ERR_IPC_CONNECTION_LOST', { reason: 'not connected' }))
        return
      }
      this.pending.set(id, { resolve, reject, method })
      this.ws.send(encodeRequest(id, method, params))
    })
  }

  /**
   * Handle the events of the topics subscribed to, each by its topic's handler (typed per
   * topic: ./events.js); events of other topics are left to other listeners.
   * @param {import('./events.js').TopicHandlers} handlers
   */
  onEvents (handlers) {
    this.on('event', (/** @type {string} */ topic, /** @type {any} */ data) => {
      const handler = Object.hasOwn(handlers, topic) ? handlers[/** @type {keyof typeof handlers} */ (topic)] : undefined
      handler?.(data)
    })
  }

  /** @param {string} text */
  onMessage (text) {
    let frame
    try {
      frame = decodeReply(text)
    } catch (err) {
      this.emit('protocol-error', err)
      return
    }
    if ('topic' in frame) {
      this.emit('event', frame.topic, frame.data)
      return
    }
    const waiter = this.pending.get(frame.id)
    if (!waiter) return
    this.pending.delete(frame.id)
    if (frame.ok) waiter.resolve(frame.result)
    else waiter.reject(SupError.fromJSON(frame.error))
  }

  /** @param {SupError} error */
  failAll (error) {
    for (const waiter of this.pending.values()) waiter.reject(error)
    this.pending.clear()
  }

  /** Close without waiting for the daemon's answer, for a CLI about to exit. */
  leave () {
    this.ws.closeAndLeave()
  }

  /** Resolves once the socket is closed. */
  close () {
    return new Promise((resolve) => {
      if (this.ws.readyState === CLOSED) return resolve(undefined)
      this.ws.once('close', () => resolve(undefined))
      this.ws.close()
    })
  }
}
