// @ts-check
// The client end of the daemon's WebSocket, over its unix socket: RFC 6455 with text frames,
// close and ping/pong, no extensions (the daemon turns permessage-deflate off). The CLI
// loads this instead of `ws`, whose import (http, https, tls, zlib and a dozen files) took
// longer than everything else a `sup ls` does; see docs/benchmarks.md. Nor node:crypto: loading
// it cost a `sup ls` more than the SHA-1 of one 60-byte handshake string (sha1Base64 below),
// and the masks of a client on a local socket need no cryptographic randomness (RFC 6455
// masks protect proxies from cache poisoning; there is no proxy on a unix socket).
import { EventEmitter } from 'node:events'
import { connect } from 'node:net'

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11'
/** How long a close handshake may take before the socket is simply destroyed (ms). */
const CLOSE_TIMEOUT = 1000

export const CONNECTING = 0
export const OPEN = 1
export const CLOSING = 2
export const CLOSED = 3

export const OPCODES = /** @type {const} */ ({ continuation: 0, text: 1, binary: 2, close: 8, ping: 9, pong: 10 })

/**
 * One final frame, masked as a client's must be.
 * @param {number} opcode
 * @param {Buffer} payload
 * @param {Buffer} [mask] 4 bytes; random unless given (tests give one)
 */
export function encodeFrame (opcode, payload, mask = randomBytes(4)) {
  const length = payload.length
  const extra = length < 126 ? 0 : length < 65536 ? 2 : 8
  const frame = Buffer.allocUnsafe(2 + extra + 4 + length)
  frame[0] = 0x80 | opcode
  if (extra === 0) frame[1] = 0x80 | length
  else if (extra === 2) {
    frame[1] = 0x80 | 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 0x80 | 127
    frame.writeBigUInt64BE(BigInt(length), 2)
  }
  const at = 2 + extra
  mask.copy(frame, at, 0, 4)
  for (let i = 0; i < length; i++) frame[at + 4 + i] = payload[i] ^ mask[i & 3]
  return frame
}

/**
 * Cuts the server's byte stream into frames. Server frames are never masked.
 */
export class FrameParser {
  /** @param {number} maxPayload */
  constructor (maxPayload) {
    this.maxPayload = maxPayload
    /** @type {Buffer} */
    this.buffer = Buffer.alloc(0)
  }

  /**
   * @param {Buffer} chunk
   * @returns {{ fin: boolean, opcode: number, payload: Buffer }[]}
   */
  push (chunk) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk])
    const frames = []
    while (this.buffer.length >= 2) {
      const b = this.buffer
      if (b[1] & 0x80) throw new Error('the server sent a masked frame')
      if (b[0] & 0x70) throw new Error('the server used an extension bit')
      let length = b[1] & 0x7f
      let at = 2
      if (length === 126) {
        if (b.length < 4) break
        length = b.readUInt16BE(2)
        at = 4
      } else if (length === 127) {
        if (b.length < 10) break
        const big = b.readBigUInt64BE(2)
        if (big > BigInt(this.maxPayload)) throw new Error('the server sent a frame over the size limit')
        length = Number(big)
        at = 10
      }
      if (length > this.maxPayload) throw new Error('the server sent a frame over the size limit')
      if (b.length < at + length) break
      frames.push({ fin: (b[0] & 0x80) !== 0, opcode: b[0] & 0x0f, payload: b.subarray(at, at + length) })
      this.buffer = b.subarray(at + length)
    }
    return frames
  }
}

/**
 * The handshake's expected Sec-WebSocket-Accept for a key.
 * @param {string} key
 */
export function acceptFor (key) {
  return sha1Base64(key + GUID)
}

/**
 * @param {number} n
 * @returns {Buffer}
 */
function randomBytes (n) {
  const bytes = Buffer.allocUnsafe(n)
  for (let i = 0; i < n; i++) bytes[i] = Math.floor(Math.random() * 256)
  return bytes
}

/**
 * SHA-1 (FIPS 180-4) of a latin1 string, in base64: enough for the handshake's one hash.
 * @param {string} text
 */
export function sha1Base64 (text) {
  const bytes = Buffer.from(text, 'latin1')
  const blocks = ((bytes.length + 8) >> 6) + 1
  const words = new Uint32Array(blocks * 16)
  for (let i = 0; i < bytes.length; i++) words[i >> 2] |= bytes[i] << (24 - (i & 3) * 8)
  words[bytes.length >> 2] |= 0x80 << (24 - (bytes.length & 3) * 8)
  words[blocks * 16 - 1] = bytes.length * 8
  const h = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0]
  const w = new Uint32Array(80)
  for (let block = 0; block < blocks; block++) {
    for (let t = 0; t < 16; t++) w[t] = words[block * 16 + t]
    for (let t = 16; t < 80; t++) {
      const x = w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16]
      w[t] = (x << 1) | (x >>> 31)
    }
    let [a, b, c, d, e] = h
    for (let t = 0; t < 80; t++) {
      const f = t < 20 ? (b & c) | (~b & d) : t < 40 ? b ^ c ^ d : t < 60 ? (b & c) | (b & d) | (c & d) : b ^ c ^ d
      const k = t < 20 ? 0x5a827999 : t < 40 ? 0x6ed9eba1 : t < 60 ? 0x8f1bbcdc : 0xca62c1d6
      const next = (((a << 5) | (a >>> 27)) + f + e + k + w[t]) >>> 0
      e = d
      d = c
      c = ((b << 30) | (b >>> 2)) >>> 0
      b = a
      a = next
    }
    h[0] = (h[0] + a) >>> 0
    h[1] = (h[1] + b) >>> 0
    h[2] = (h[2] + c) >>> 0
    h[3] = (h[3] + d) >>> 0
    h[4] = (h[4] + e) >>> 0
  }
  const digest = Buffer.allocUnsafe(20)
  h.forEach((value, i) => digest.writeUInt32BE(value, i * 4))
  return digest.toString('base64')
}

/** The close code of a connection that ended without a close frame (RFC 6455 §7.1.5). */
export const CLOSE_ABNORMAL = 1006

/**
 * A WebSocket over a unix socket, with the part of `ws`'s client API that ipc/transport.js
 * uses: readyState, send(text), close(), terminate(), and the events 'open',
 * 'message' (Buffer), 'error' and 'close' (code, reason). Or over any byte stream already
 * joined to the daemon's socket: `sup --host` gives the stdin and stdout of an ssh session.
 */
export class UnixWebSocket extends EventEmitter {
  /**
   * @param {string | import('node:stream').Duplex & { unref?: () => void }} target the socket's
   *   path, or a stream that reaches it
   * @param {{ maxPayload?: number }} [options]
   */
  constructor (target, { maxPayload = 16 * 1024 * 1024 } = {}) {
    super()
    this.readyState = CONNECTING
    this.parser = new FrameParser(maxPayload)
    /** @type {Buffer[]} */
    this.fragments = []
    this.key = randomBytes(16).toString('base64')
    /** @type {Buffer} */
    this.head = Buffer.alloc(0)
    /** @type {NodeJS.Timeout | null} */
    this.closeTimer = null
    /** What the server's close frame said (1006: the connection ended without one). */
    this.closeCode = CLOSE_ABNORMAL
    this.closeReason = ''
    const upgrade = () => this.socket.write(
      `GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${this.key}\r\nSec-WebSocket-Version: 13\r\n\r\n`
    )
    if (typeof target === 'string') {
      const socket = connect(target)
      socket.setNoDelay(true)
      socket.on('connect', upgrade)
      /** @type {import('node:stream').Duplex & { unref?: () => void }} */
      this.socket = socket
    } else {
      this.socket = target
      upgrade()
    }
    this.socket.on('data', (chunk) => this.onData(chunk))
    this.socket.on('error', (err) => this.emit('error', err))
    this.socket.on('close', () => {
      if (this.closeTimer) clearTimeout(this.closeTimer)
      this.readyState = CLOSED
      this.emit('close', this.closeCode, this.closeReason)
    })
  }

  /** @param {string} text */
  send (text) {
    if (this.readyState !== OPEN) throw new Error('the WebSocket is not open')
    this.socket.write(encodeFrame(OPCODES.text, Buffer.from(text)))
  }

  /** Start the closing handshake; the socket is destroyed if the server does not finish it. */
  close (code = 1000) {
    if (this.readyState === CLOSED || this.readyState === CLOSING) return
    if (this.readyState === CONNECTING) return this.terminate()
    this.readyState = CLOSING
    const payload = Buffer.allocUnsafe(2)
    payload.writeUInt16BE(code)
    this.socket.write(encodeFrame(OPCODES.close, payload))
    this.closeTimer = setTimeout(() => this.socket.destroy(), CLOSE_TIMEOUT)
  }

  /**
   * Say goodbye and go without waiting for the server's answer: the close frame, the end of
   * the socket, and nothing left to keep the process alive (a one-shot CLI exits at once).
   */
  closeAndLeave (code = 1000) {
    if (this.readyState !== OPEN) return this.terminate()
    this.readyState = CLOSING
    const payload = Buffer.allocUnsafe(2)
    payload.writeUInt16BE(code)
    this.socket.end(encodeFrame(OPCODES.close, payload))
    this.socket.unref?.()
  }

  terminate () {
    this.readyState = CLOSING
    this.socket.destroy()
  }

  /** @param {Buffer} chunk */
  onData (chunk) {
    try {
      if (this.readyState === CONNECTING) {
        this.head = Buffer.concat([this.head, chunk])
        const end = this.head.indexOf('\r\n\r\n')
        if (end === -1) {
          if (this.head.length > 16 * 1024) throw new Error('the handshake reply is too long')
          return
        }
        this.checkHandshake(this.head.subarray(0, end).toString('latin1'))
        chunk = this.head.subarray(end + 4)
        this.head = Buffer.alloc(0)
        this.readyState = OPEN
        this.emit('open')
        if (chunk.length === 0) return
      }
      for (const frame of this.parser.push(chunk)) this.onFrame(frame)
    } catch (err) {
      this.emit('error', err)
      this.terminate()
    }
  }

  /** @param {string} head the status line and headers */
  checkHandshake (head) {
    const [status, ...lines] = head.split('\r\n')
    if (!/^HTTP\/1\.1 101\b/.test(status)) throw new Error(`the server refused the WebSocket upgrade (${status})`)
    const accept = lines.find((l) => /^sec-websocket-accept:/i.test(l))?.slice(21).trim()
    if (accept !== acceptFor(this.key)) throw new Error('the server answered the handshake with a wrong Sec-WebSocket-Accept')
  }

  /** @param {{ fin: boolean, opcode: number, payload: Buffer }} frame */
  onFrame ({ fin, opcode, payload }) {
    if (opcode === OPCODES.close) {
      this.closeCode = payload.length >= 2 ? payload.readUInt16BE(0) : 1005
      this.closeReason = payload.subarray(2).toString('utf8')
      // Echo the server's close (once), then the server ends the TCP connection.
      if (this.readyState === OPEN) {
        this.readyState = CLOSING
        this.socket.write(encodeFrame(OPCODES.close, payload.subarray(0, 2)))
      }
      this.socket.end()
      return
    }
    if (opcode === OPCODES.ping) {
      if (this.readyState === OPEN) this.socket.write(encodeFrame(OPCODES.pong, payload))
      return
    }
    if (opcode === OPCODES.pong) return
    if (opcode !== OPCODES.text && opcode !== OPCODES.binary && opcode !== OPCODES.continuation) {
      throw new Error(`the server sent unknown opcode ${opcode}`)
    }
    this.fragments.push(payload)
    if (!fin) return
    const message = this.fragments.length === 1 ? this.fragments[0] : Buffer.concat(this.fragments)
    this.fragments = []
    this.emit('message', message)
  }
}
