// @ts-check
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { upgradeKey, WebSocketServer } from '../../../daemon/ws-server.js'
import { encodeFrame, FrameParser, OPCODES, UnixWebSocket } from '../../../ipc/ws-client.js'

const KEY = 'dGhlIHNhbXBsZSBub25jZQ=='
const UPGRADE = `GET / HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${KEY}\r\nSec-WebSocket-Version: 13\r\n\r\n`

test('upgradeKey: the key of a valid upgrade, the refusal of anything else', () => {
  const rows = [
    [UPGRADE.slice(0, -4), KEY],
    ['GET / HTTP/1.1\r\nHost: x', { status: '426 Upgrade Required' }],
    ['POST / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ' + KEY + '\r\nSec-WebSocket-Version: 13', { status: '400 Bad Request' }],
    ['GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\nSec-WebSocket-Key: ' + KEY + '\r\nSec-WebSocket-Version: 8', { status: '400 Bad Request' }],
    ['GET / HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13', { status: '400 Bad Request' }],
    ['GET / HTTP/1.1\r\nno colon here', { status: '400 Bad Request' }]
  ]
  for (const [head, expected] of rows) assert.deepEqual(upgradeKey(/** @type {string} */ (head)), expected, String(head))
})

/**
 * A server on a temp socket echoing each message back, and a raw client socket upgraded to it.
 * @param {import('node:test').TestContext} t
 */
async function setUp (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-ws-'))
  const path = join(dir, 's.sock')
  const server = new WebSocketServer({ maxPayload: 1024, handshakeMs: 2000 })
  /** @type {{ data: Buffer, binary: boolean }[]} */
  const messages = []
  server.on('connection', (ws) => ws.on('message', (/** @type {Buffer} */ data, /** @type {boolean} */ binary) => {
    messages.push({ data, binary })
    ws.send(`echo ${data.toString()}`)
  }))
  await server.listen(path)
  t.after(async () => {
    await server.close({ graceMs: 100 })
    rmSync(dir, { recursive: true, force: true })
  })
  return { server, path, messages }
}

/**
 * Write `bytes` on a raw connection; resolve with what the server sent until it closed.
 * @param {string} path
 * @param {(Buffer | string)[]} writes
 */
function exchange (path, writes) {
  return new Promise((resolve, reject) => {
    const socket = connect(path)
    /** @type {Buffer[]} */
    const chunks = []
    socket.on('connect', () => { for (const w of writes) socket.write(w) })
    socket.on('data', (c) => chunks.push(c))
    socket.on('error', reject)
    socket.on('close', () => resolve(Buffer.concat(chunks)))
    setTimeout(() => socket.destroy(), 3000)
  })
}

/** Server frames after the 101 head. @param {Buffer} data */
function framesAfterHead (data) {
  const end = data.indexOf('\r\n\r\n')
  assert.match(data.subarray(0, end).toString('latin1'), /^HTTP\/1\.1 101 /)
  return new FrameParser(1 << 20).push(data.subarray(end + 4))
}

const close = encodeFrame(OPCODES.close, Buffer.from([0x03, 0xe8]))

test('the client of ipc/ws-client.js talks to it: messages, a fragmented one, close', async (t) => {
  const { path, messages } = await setUp(t)
  const ws = new UnixWebSocket(path)
  await new Promise((resolve) => ws.once('open', resolve))
  const replies = []
  ws.on('message', (m) => replies.push(m.toString()))
  ws.send('hello')
  const first = encodeFrame(OPCODES.text, Buffer.from('frag'))
  first[0] = OPCODES.text // FIN off: the first fragment of a message
  ws.socket.write(Buffer.concat([first, encodeFrame(OPCODES.continuation, Buffer.from('mented'))]))
  ws.close()
  await new Promise((resolve) => ws.once('close', resolve))
  assert.deepEqual(messages.map((m) => m.data.toString()), ['hello', 'fragmented'])
  assert.deepEqual(replies, ['echo hello', 'echo fragmented'])
})

test('ping is answered with pong; frames behind the upgrade request are read', async (t) => {
  const { path } = await setUp(t)
  const data = await exchange(path, [Buffer.concat([Buffer.from(UPGRADE), encodeFrame(OPCODES.ping, Buffer.from('p1')), encodeFrame(OPCODES.text, Buffer.from('x')), close])])
  const frames = framesAfterHead(data)
  assert.deepEqual(frames.map((f) => [f.opcode, f.payload.toString('latin1')]), [[OPCODES.pong, 'p1'], [OPCODES.text, 'echo x'], [OPCODES.close, '\x03\xe8']])
})

test('protocol errors close with their code: unmasked 1002, too large 1009, bad UTF-8 1007', async (t) => {
  const { path, messages } = await setUp(t)
  const unmasked = Buffer.from([0x81, 0x01, 0x61])
  const big = Buffer.concat([Buffer.from([0x81, 0xfe, 0x08, 0x00]), Buffer.alloc(4)]) // announces 2048 bytes > 1024
  const badUtf8 = encodeFrame(OPCODES.text, Buffer.from([0xc3, 0x28]))
  for (const [frame, code] of /** @type {const} */ ([[unmasked, 1002], [big, 1009], [badUtf8, 1007]])) {
    const frames = framesAfterHead(await exchange(path, [UPGRADE, frame]))
    assert.equal(frames.at(-1)?.opcode, OPCODES.close)
    assert.equal(frames.at(-1)?.payload.readUInt16BE(0), code)
  }
  assert.equal(messages.length, 0)
})

test('an HTTP request gets 426, garbage 400, and both are closed', async (t) => {
  const { path } = await setUp(t)
  assert.match((await exchange(path, ['GET / HTTP/1.1\r\nHost: x\r\n\r\n'])).toString(), /^HTTP\/1\.1 426 /)
  assert.match((await exchange(path, [Buffer.from([0, 255, 13, 10, 1, 2])])).toString(), /^HTTP\/1\.1 400 /)
})

test('close() ends every connection: the client hears 1001', async (t) => {
  const { server, path } = await setUp(t)
  const ws = new UnixWebSocket(path)
  await new Promise((resolve) => ws.once('open', resolve))
  const closed = new Promise((resolve) => ws.once('close', (code) => resolve(code)))
  await server.close({ graceMs: 1000 })
  assert.equal(await closed, 1001)
  assert.equal(server.clients.size, 0)
})
