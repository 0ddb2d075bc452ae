// @ts-check
// The CLI's own WebSocket client against the `ws` package's server (interoperability; the
// daemon itself runs daemon/ws-server.js), on a unix socket.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { WebSocketServer } from 'ws'
import { OPEN, UnixWebSocket } from '../../ipc/ws-client.js'
import { waitForEvent } from '../helpers/wait.js'

/**
 * A `ws` server on a temp unix socket, set up as daemon/server.js sets it up.
 * @param {import('node:test').TestContext} t
 * @param {(ws: import('ws').WebSocket) => void} onConnection
 */
async function serve (t, onConnection) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-ws-'))
  const path = join(dir, 'test.sock')
  const http = createServer((req, res) => { res.writeHead(426).end() })
  const wss = new WebSocketServer({ server: http, perMessageDeflate: false, maxPayload: 16 * 1024 * 1024 })
  wss.on('connection', onConnection)
  http.listen(path)
  await waitForEvent(http, 'listening', { what: 'http listening' })
  t.after(async () => {
    for (const ws of wss.clients) ws.terminate()
    await new Promise((resolve) => wss.close(resolve))
    await new Promise((resolve) => http.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })
  return { path, wss }
}

test('messages both ways, small and large, a fragmented one, and a ping answered', async (t) => {
  const large = 'x'.repeat(200_000)
  const { path } = await serve(t, (ws) => {
    ws.on('message', (data) => ws.send(`echo:${data}`))
    ws.send('hello')
    ws.send(large)
    ws.send('frag', { fin: false })
    ws.send('mented', { fin: true })
    ws.ping('are you there')
    ws.on('pong', (data) => ws.send(`pong:${data}`))
  })
  const client = new UnixWebSocket(path)
  /** @type {string[]} */
  const received = []
  const enough = new Promise((resolve) => client.on('message', (data) => {
    received.push(data.toString())
    if (received.length === 5) resolve(undefined)
  }))
  await waitForEvent(client, 'open', { what: 'client open' })
  assert.equal(client.readyState, OPEN)
  client.send('é and 𝄞')
  await enough
  assert.deepEqual(received.sort(), ['echo:é and 𝄞', 'fragmented', 'hello', large, 'pong:are you there'].sort())
  client.close()
  await waitForEvent(client, 'close', { what: 'client close' })
})

test('close from either side ends in "close" with the socket gone', async (t) => {
  /** @type {Promise<[number, Buffer]>} */
  let serverSawClose = new Promise(() => {})
  const { path } = await serve(t, (ws) => {
    serverSawClose = /** @type {any} */ (waitForEvent(ws, 'close', { what: 'ws close' }))
    ws.on('message', () => ws.close(1001, 'going away'))
  })
  const first = new UnixWebSocket(path)
  await waitForEvent(first, 'open', { what: 'first open' })
  first.close()
  await waitForEvent(first, 'close', { what: 'first close' })
  const [code] = await serverSawClose
  assert.equal(code, 1000)

  const second = new UnixWebSocket(path)
  await waitForEvent(second, 'open', { what: 'second open' })
  second.send('bye')
  await waitForEvent(second, 'close', { what: 'second close' })
})

test('a refused upgrade and a missing socket are errors, not hangs', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sup-ws-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const http = createServer((req, res) => { res.writeHead(426).end() })
  http.listen(join(dir, 'plain.sock'))
  await waitForEvent(http, 'listening', { what: 'http listening' })
  t.after(() => http.close())
  const refused = new UnixWebSocket(join(dir, 'plain.sock'))
  const [err] = await waitForEvent(refused, 'error', { what: 'refused error' })
  assert.match(err.message, /refused the WebSocket upgrade \(HTTP\/1\.1 426/)
  await waitForEvent(refused, 'close', { what: 'refused close' })

  const missing = new UnixWebSocket(join(dir, 'nobody.sock'))
  const [notFound] = await waitForEvent(missing, 'error', { what: 'missing error' })
  assert.equal(notFound.code, 'ENOENT')
})
