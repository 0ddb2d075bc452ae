// @ts-check
// Hostile clients of sup.sock, for test/integration/faults-ipc.test.js (the bounded subset in
// npm test) and test/faults/ (the full sizes). Each returns what it saw; the tests assert.
import assert from 'node:assert/strict'
import { connect as netConnect } from 'node:net'
import { encodeFrame, OPCODES } from '../../ipc/ws-client.js'
import { connect } from '../../ipc/transport.js'

/**
 * A raw stream socket to the daemon.
 * @param {string} socketPath
 * @returns {Promise<import('node:net').Socket>}
 */
export function rawSocket (socketPath) {
  return new Promise((resolve, reject) => {
    const socket = netConnect(socketPath)
    socket.once('error', reject)
    socket.once('connect', () => {
      socket.off('error', reject)
      socket.on('error', () => {})
      resolve(socket)
    })
  })
}

/**
 * Everything the daemon sends until it ends the connection, or the deadline.
 * @param {import('node:net').Socket} socket
 * @param {number} ms
 * @returns {Promise<{ closed: boolean, data: Buffer, ms: number }>}
 */
export function untilClosed (socket, ms) {
  const started = Date.now()
  return new Promise((resolve) => {
    /** @type {Buffer[]} */
    const chunks = []
    socket.on('data', (chunk) => chunks.push(chunk))
    const timer = setTimeout(() => finish(false), ms)
    socket.once('close', () => finish(true))
    if (socket.destroyed) finish(true)
    /** @param {boolean} closed */
    function finish (closed) {
      clearTimeout(timer)
      resolve({ closed, data: Buffer.concat(chunks), ms: Date.now() - started })
    }
  })
}

/**
 * A raw socket that has done the WebSocket upgrade by hand, so frames can be written as bytes.
 * @param {string} socketPath
 */
export async function upgradedSocket (socketPath) {
  const socket = await rawSocket(socketPath)
  socket.write('GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n' +
    'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n')
  await new Promise((resolve, reject) => {
    let head = ''
    const onData = (/** @type {Buffer} */ chunk) => {
      head += chunk.toString('latin1')
      if (!head.includes('\r\n\r\n')) return
      socket.off('data', onData)
      if (!head.startsWith('HTTP/1.1 101')) reject(new Error(`upgrade refused: ${head.split('\r\n')[0]}`))
      else resolve(undefined)
    }
    socket.on('data', onData)
  })
  return socket
}

/**
 * The close code in the daemon's close frame, if the bytes hold one (server frames are unmasked).
 * @param {Buffer} data
 * @returns {number | null}
 */
export function closeCodeIn (data) {
  let at = 0
  while (at + 2 <= data.length) {
    const opcode = data[at] & 0x0f
    let length = data[at + 1] & 0x7f
    let start = at + 2
    if (length === 126) { length = data.readUInt16BE(at + 2); start += 2 } else if (length === 127) { length = Number(data.readBigUInt64BE(at + 2)); start += 8 }
    if (opcode === OPCODES.close && length >= 2) return data.readUInt16BE(start)
    at = start + length
  }
  return null
}

/**
 * The header of a masked text frame that announces `length` bytes.
 * @param {number} length
 */
export function frameHeader (length) {
  const header = encodeFrame(OPCODES.text, Buffer.alloc(0))
  const out = Buffer.alloc(14)
  out[0] = header[0]
  out[1] = 0x80 | 127
  out.writeBigUInt64BE(BigInt(length), 2)
  header.copy(out, 10, 2, 6)
  return out
}

/**
 * The daemon answers ping within `ms`, the apps are the ones it had, and a fresh connection
 * works: what must hold after every abuse.
 * @param {string} socketPath
 * @param {import('../../ipc/methods.js').WorkerRow[]} before `app.list` before the abuse
 * @param {number} [ms]
 */
export async function assertHealthy (socketPath, before, ms = 1000) {
  const conn = await connect(socketPath)
  try {
    const started = Date.now()
    const pong = await conn.request('daemon.ping')
    const took = Date.now() - started
    assert.equal(pong.pong, true)
    assert.ok(took < ms, `ping answered in ${took} ms (limit ${ms})`)
    const rows = await conn.request('app.list')
    assert.deepEqual(rows.map(brief), before.map(brief), 'no app state lost')
    return took
  } finally {
    await conn.close()
  }
}

/** @param {import('../../ipc/methods.js').WorkerRow} row */
const brief = (row) => `${row.id}:${row.name}:${row.pid}:${row.status}`
