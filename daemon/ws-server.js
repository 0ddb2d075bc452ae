// @ts-check
// The daemon's end of its WebSocket (design §5), on node:net: the HTTP/1.1 upgrade, masked
// client frames, text and binary messages, fragments, ping/pong and the close handshake
// (RFC 6455), no extensions. It replaces `ws` and node:http, which together made about
// 8 MiB of the daemon's RSS and 30 files of its start-up for one local client at a time
// (docs/benchmarks.md); the CLI's end is ipc/ws-client.js. Anything but an upgrade request
// gets 426 (an HTTP request) or 400 (garbage); a frame or message over `maxPayload` closes
// the connection with 1009 before its payload is read; invalid UTF-8 in a text message, 1007.
import { isUtf8 } from 'node:buffer'
import { EventEmitter } from 'node:events'
import { createServer } from 'node:net'
// The handshake's SHA-1 as the CLI computes it: node:crypto is not loaded for one hash (RSS).
import { acceptFor } from '../ipc/ws-client.js'
/** Longest request head (request line and headers) read before refusing it. */
const MAX_HEAD = 16 * 1024
/** How long a close handshake this side started may take before the socket is destroyed. */
const CLOSE_TIMEOUT = 30_000
/** After closing for a protocol error, how long the peer has to end its side. */
const FAIL_TIMEOUT = 1000

export const CONNECTING = 0
export const OPEN = 1
export const CLOSING = 2
export const CLOSED = 3

/**
 * A WebSocket server on a unix socket (or any net server address), with the part of `ws`'s
 * WebSocketServer API the daemon uses: 'connection' events, `clients`, listen and close.
 */
export class WebSocketServer extends EventEmitter {
  /** @param {{ maxPayload: number, handshakeMs: number }} options */
  constructor ({ maxPayload, handshakeMs }) {
    super()
    this.maxPayload = maxPayload
    this.handshakeMs = handshakeMs
    /** Upgraded connections. @type {Set<ServerWebSocket>} */
    this.clients = new Set()
    /** Connections still in their handshake. @type {Set<import('node:net').Socket>} */
    this.pending = new Set()
    this.server = createServer((socket) => this.accept(socket))
  }

  /**
   * @param {string} path
   * @returns {Promise<void>}
   */
  listen (path) {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject)
      this.server.listen(path, () => {
        this.server.off('error', reject)
        resolve()
      })
    })
  }

  /** Stop taking connections (the listening socket goes at once); connected clients stay. */
  stopListening () {
    if (this.server.listening) this.server.close()
  }

  /**
   * Stop listening, close every connection (code 1001 unless told), and wait up to `graceMs`
   * for the clients to finish the close handshake before destroying what is left.
   * @param {{ code?: number, reason?: string, graceMs?: number }} [options]
   */
  async close ({ code = 1001, reason = '', graceMs = 1000 } = {}) {
    const stopped = new Promise((resolve) => this.server.close(() => resolve(undefined)))
    for (const socket of this.pending) socket.destroy()
    for (const ws of this.clients) ws.close(code, reason)
    const gone = Promise.all([...this.clients].map((ws) => new Promise((resolve) => {
      if (ws.readyState === CLOSED) resolve(undefined)
      else ws.once('close', resolve)
    })))
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    await Promise.race([gone, new Promise((resolve) => { timer = setTimeout(resolve, graceMs) })])
    clearTimeout(timer)
    for (const ws of this.clients) ws.terminate()
    await stopped
  }

  /** @param {import('node:net').Socket} socket */
  accept (socket) {
    this.pending.add(socket)
    /** @type {Buffer} */
    let head = Buffer.alloc(0)
    const timer = setTimeout(() => socket.destroy(), this.handshakeMs)
    const done = () => {
      clearTimeout(timer)
      this.pending.delete(socket)
      socket.off('data', onData)
    }
    const refuse = (/** @type {string} */ status) => {
      done()
      socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
      setTimeout(() => socket.destroy(), FAIL_TIMEOUT).unref()
    }
    const onData = (/** @type {Buffer} */ chunk) => {
      head = head.length === 0 ? chunk : Buffer.concat([head, chunk])
      // A request line that is not HTTP is refused as soon as it is seen.
      const eol = head.indexOf('\r\n')
      if (eol !== -1 && !/^[A-Z]+ \S+ HTTP\/1\.[01]$/.test(head.subarray(0, eol).toString('latin1'))) return refuse('400 Bad Request')
      const end = head.indexOf('\r\n\r\n')
      if (end === -1) {
        if (head.length > MAX_HEAD) refuse('431 Request Header Fields Too Large')
        return
      }
      const key = upgradeKey(head.subarray(0, end).toString('latin1'))
      if (typeof key !== 'string') return refuse(key.status)
      done()
      socket.write('HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
        `Sec-WebSocket-Accept: ${acceptFor(key)}\r\n\r\n`)
      const ws = new ServerWebSocket(socket, this.maxPayload)
      this.clients.add(ws)
      ws.once('close', () => this.clients.delete(ws))
      this.emit('connection', ws)
      // Frames the client sent right behind its request.
      if (head.length > end + 4) ws.onData(head.subarray(end + 4))
    }
    socket.on('data', onData)
    socket.on('error', () => {})
    socket.on('close', done)
  }
}

/**
 * The client's key when `head` is a WebSocket upgrade request, else the status to refuse it with.
 * @param {string} head the request line and headers, without the blank line
 * @returns {string | { status: string }}
 */
export function upgradeKey (head) {
  const [requestLine, ...lines] = head.split('\r\n')
  /** @type {Record<string, string>} */
  const headers = {}
  for (const line of lines) {
    const colon = line.indexOf(':')
    if (colon <= 0) return { status: '400 Bad Request' }
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  if (!/^websocket$/i.test(headers.upgrade ?? '')) return { status: '426 Upgrade Required' }
  if (!requestLine.startsWith('GET ') || !/\bupgrade\b/i.test(headers.connection ?? '')) return { status: '400 Bad Request' }
  if (headers['sec-websocket-version'] !== '13') return { status: '400 Bad Request' }
  const key = headers['sec-websocket-key'] ?? ''
  if (!/^[+/0-9A-Za-z]{22}==$/.test(key)) return { status: '400 Bad Request' }
  return key
}

/**
 * One upgraded connection, with the part of `ws`'s WebSocket API the daemon uses:
 * readyState and OPEN, send(text, callback), bufferedAmount, close(code, reason), terminate(),
 * and the events 'message' (Buffer, isBinary), 'close' (code, reason) and 'error'.
 */
export class ServerWebSocket extends EventEmitter {
  /**
   * @param {import('node:net').Socket} socket
   * @param {number} maxPayload
   */
  constructor (socket, maxPayload) {
    super()
    this.socket = socket
    this.maxPayload = maxPayload
    this.readyState = OPEN
    /** @type {Buffer} */
    this.buffer = Buffer.alloc(0)
    /** @type {Buffer[]} */
    this.fragments = []
    this.fragmentBytes = 0
    this.fragmentBinary = false
    /** The close code the client sent (1006: the connection ended without one). */
    this.closeCode = 1006
    this.closeReason = ''
    /** @type {NodeJS.Timeout | null} */
    this.closeTimer = null
    /** Closed for a protocol error: what else arrives is not read. */
    this.failed = false
    socket.on('data', (chunk) => this.onData(chunk))
    socket.on('error', (err) => this.emit('error', err))
    socket.on('close', () => {
      if (this.closeTimer) clearTimeout(this.closeTimer)
      this.readyState = CLOSED
      this.emit('close', this.closeCode, this.closeReason)
    })
  }

  get OPEN () { return OPEN }

  /** Bytes written but not yet handed to the kernel. */
  get bufferedAmount () { return this.socket.writableLength }

  /**
   * Send a text message as one frame; `callback` runs once it is written.
   * @param {string} text
   * @param {(err?: Error | null) => void} [callback]
   */
  send (text, callback) {
    if (this.readyState !== OPEN) {
      callback?.(new Error('the WebSocket is not open'))
      return
    }
    const length = Buffer.byteLength(text)
    const at = length < 126 ? 2 : length < 65536 ? 4 : 10
    const frame = Buffer.allocUnsafe(at + length)
    writeHeader(frame, 0x1, length)
    frame.write(text, at, 'utf8')
    this.socket.write(frame, callback)
  }

  /**
   * Start the close handshake; the socket is destroyed if the client does not finish it.
   * @param {number} [code]
   * @param {string} [reason]
   */
  close (code = 1000, reason = '') {
    if (this.readyState !== OPEN) return
    this.readyState = CLOSING
    this.socket.write(closeFrame(code, reason))
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_TIMEOUT)
  }

  terminate () {
    this.readyState = CLOSING
    this.socket.destroy()
  }

  /**
   * Close at once for a broken rule of the protocol: the close frame, then the end.
   * @param {number} code
   * @param {string} reason
   */
  fail (code, reason) {
    if (this.readyState === OPEN) this.socket.write(closeFrame(code, reason))
    this.readyState = CLOSING
    this.failed = true
    this.buffer = Buffer.alloc(0)
    this.socket.end()
    if (!this.closeTimer) this.closeTimer = setTimeout(() => this.socket.destroy(), FAIL_TIMEOUT)
  }

  /** @param {Buffer} chunk */
  onData (chunk) {
    if (this.failed || this.readyState === CLOSED) return
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    while (this.buffer.length >= 2 && !this.failed && this.readyState !== CLOSED) {
      const b = this.buffer
      const fin = (b[0] & 0x80) !== 0
      const opcode = b[0] & 0x0f
      if (b[0] & 0x70) return this.fail(1002, 'extension bits are not negotiated')
      if (!(b[1] & 0x80)) return this.fail(1002, 'client frames must be masked')
      let length = b[1] & 0x7f
      let at = 2
      if (length === 126) {
        if (b.length < 4) return
        length = b.readUInt16BE(2)
        at = 4
      } else if (length === 127) {
        if (b.length < 10) return
        const big = b.readBigUInt64BE(2)
        if (big > BigInt(this.maxPayload)) return this.fail(1009, 'frame too large')
        length = Number(big)
        at = 10
      }
      if (opcode >= 0x8) {
        if (!fin || length > 125) return this.fail(1002, 'a control frame must be whole and at most 125 bytes')
      } else if (length + this.fragmentBytes > this.maxPayload) {
        return this.fail(1009, 'message too large')
      }
      if (b.length < at + 4 + length) return
      const payload = b.subarray(at + 4, at + 4 + length)
      for (let i = 0; i < length; i++) payload[i] ^= b[at + (i & 3)]
      this.buffer = b.subarray(at + 4 + length)
      this.onFrame(fin, opcode, payload)
    }
  }

  /**
   * @param {boolean} fin
   * @param {number} opcode
   * @param {Buffer} payload
   */
  onFrame (fin, opcode, payload) {
    switch (opcode) {
      case 0x0: // continuation
        if (this.fragments.length === 0) return this.fail(1002, 'a continuation frame with nothing to continue')
        return this.addFragment(fin, payload)
      case 0x1: // text
      case 0x2: // binary
        if (this.fragments.length > 0) return this.fail(1002, 'a new message inside a fragmented one')
        this.fragmentBinary = opcode === 0x2
        return this.addFragment(fin, payload)
      case 0x8: { // close
        if (payload.length === 1) return this.fail(1002, 'a close payload of one byte')
        this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
        this.closeReason = payload.subarray(2).toString('utf8')
        // The client's close, or its answer to ours: echo it (once), then end the connection.
        if (this.readyState === OPEN) this.socket.write(closeFrame(this.closeCode === 1005 ? 1000 : this.closeCode, ''))
        this.readyState = CLOSING
        this.socket.end()
        return
      }
      case 0x9: // ping
        if (this.readyState === OPEN) {
          const frame = Buffer.allocUnsafe(2 + payload.length)
          writeHeader(frame, 0xa, payload.length)
          payload.copy(frame, 2)
          this.socket.write(frame)
        }
        return
      case 0xa: // pong
        return
      default:
        return this.fail(1002, `unknown opcode ${opcode}`)
    }
  }

  /**
   * @param {boolean} fin
   * @param {Buffer} payload
   */
  addFragment (fin, payload) {
    this.fragments.push(payload)
    this.fragmentBytes += payload.length
    if (!fin) return
    const message = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments)
    this.fragments = []
    this.fragmentBytes = 0
    if (!this.fragmentBinary && !isUtf8(message)) return this.fail(1007, 'a text message that is not UTF-8')
    if (this.readyState === OPEN) this.emit('message', message, this.fragmentBinary)
  }
}

/**
 * A server frame's header (never masked) at the start of `frame`.
 * @param {Buffer} frame
 * @param {number} opcode
 * @param {number} length
 */
function writeHeader (frame, opcode, length) {
  frame[0] = 0x80 | opcode
  if (length < 126) frame[1] = length
  else if (length < 65536) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeBigUInt64BE(BigInt(length), 2)
  }
}

/**
 * @param {number} code
 * @param {string} reason
 */
function closeFrame (code, reason) {
  const text = Buffer.from(reason).subarray(0, 123)
  const frame = Buffer.allocUnsafe(4 + text.length)
  writeHeader(frame, 0x8, 2 + text.length)
  frame.writeUInt16BE(code, 2)
  text.copy(frame, 4)
  return frame
}
