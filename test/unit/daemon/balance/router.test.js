// @ts-check
// The router with a real listening socket on 127.0.0.1 and fake workers that record what
// they are sent (a real worker gets the socket over its IPC channel: test/integration/realtime-sticky.test.js).
import assert from 'node:assert/strict'
import net from 'node:net'
import { test } from 'node:test'
import { Router } from '../../../../daemon/balance/router.js'
import { waitFor } from '../../../helpers/wait.js'

/**
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [over]
 * @returns {import('../../../../ipc/app-config.js').AppConfig}
 */
const config = (over = {}) => /** @type {any} */ ({ name: 'app', exec_mode: 'cluster', sticky: false, balance: 'least-conn', sticky_cookie: null, trust_proxy: false, ...over })

/**
 * A fake worker: what it is sent, and its handlers in the router.
 * @param {Router} router
 * @param {number} id
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [over]
 */
function fakeWorker (router, id, over) {
  /** @type {any[]} */
  const sent = []
  const route = router.join(config(over), { id, send: (message, handle, onError) => { sent.push({ ...message, handle }); onError(null) } })
  return { id, sent, route, conns: () => sent.filter((m) => m.act === 'conn') }
}

/**
 * Workers listening on one port of one app; the port, once bound.
 * @param {import('node:test').TestContext} t
 * @param {number} count
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [over]
 */
async function listening (t, count, over) {
  const router = new Router()
  const workers = Array.from({ length: count }, (_, i) => fakeWorker(router, i + 1, over))
  for (const w of workers) w.route.listen({ seq: 1, address: '127.0.0.1', port: 0, addressType: 4, index: 0, flags: 0 })
  const answers = await waitFor(() => workers.every((w) => w.sent.some((m) => m.act === 'listened')) && workers.map((w) => w.sent.find((m) => m.act === 'listened')), { what: 'every listen answered' })
  t.after(() => { for (const w of workers) w.route.leave() })
  const port = answers[0].sockname.port
  assert.ok(answers.every((a) => a.sockname.port === port && a.key === answers[0].key), 'one port for the app')
  return { router, workers, port, key: answers[0].key }
}

/**
 * Open a connection and write `text`.
 * @param {import('node:test').TestContext} t
 * @param {number} port
 * @param {string} [text]
 */
function client (t, port, text) {
  const socket = net.connect(port, '127.0.0.1', () => { if (text) socket.write(text) })
  socket.on('error', () => {})
  t.after(() => socket.destroy())
  return socket
}

test('least-conn: new connections go to the worker with the fewest; closed ones are counted down', async (t) => {
  const { workers, port, key } = await listening(t, 2)
  const [a, b] = workers
  for (let i = 0; i < 4; i++) client(t, port)
  await waitFor(() => a.conns().length + b.conns().length === 4, { what: '4 connections handed out' })
  assert.deepEqual([a.conns().length, b.conns().length], [2, 2])
  assert.ok(a.conns().every((m) => m.key === key && m.data === '' && m.handle), 'least-conn reads nothing and sends the socket')
  for (const m of a.conns()) a.route.took({ seq: m.seq, ok: true })
  for (const m of b.conns()) b.route.took({ seq: m.seq, ok: true })
  a.route.closed({ n: 2 })
  assert.deepEqual([a.route.open, b.route.open], [0, 2])
  for (let i = 0; i < 2; i++) client(t, port)
  await waitFor(() => a.conns().length === 4, { what: 'the next two to the emptied worker', show: () => [a.conns().length, b.conns().length] })
  assert.equal(b.conns().length, 2)
})

test('a declined connection goes to another worker; one left unanswered by a worker that is gone, too', async (t) => {
  const { workers, port } = await listening(t, 2)
  const [a, b] = workers
  client(t, port)
  await waitFor(() => a.conns().length + b.conns().length === 1, { what: 'one connection handed out' })
  const [first, other] = a.conns().length === 1 ? [a, b] : [b, a]
  first.route.took({ seq: first.conns()[0].seq, ok: false })
  await waitFor(() => other.conns().length === 1, { what: 'the declined one offered to the other' })
  other.route.leave()
  await waitFor(() => first.conns().length === 2, { what: 'the gone worker\'s offered back (it may take it now)' })
})

test('sticky: a socket.io session goes back to the worker that made it, and elsewhere once that worker is gone', async (t) => {
  const { workers, port } = await listening(t, 3, { sticky: true, balance: 'daemon' })
  const holder = workers[2]
  holder.route.session({ sid: 'abcdefghij0123456789' })
  const request = 'GET /socket.io/?EIO=4&transport=polling&sid=abcdefghij0123456789 HTTP/1.1\r\nHost: x\r\n\r\n'
  for (let i = 0; i < 3; i++) client(t, port, request)
  await waitFor(() => holder.conns().length === 3, { what: 'all three to the session\'s worker', show: () => workers.map((w) => w.conns().length) })
  assert.equal(Buffer.from(holder.conns()[0].data, 'base64').toString(), request, 'the bytes read go with the socket')
  for (const m of holder.conns()) holder.route.took({ seq: m.seq, ok: true })
  holder.route.leave()
  client(t, port, request)
  await waitFor(() => workers[0].conns().length + workers[1].conns().length === 1, { what: 'the session\'s next request to a live worker' })
})

test('sticky: a client address keeps its worker once a worker took it; a request head that never comes is not routed', async (t) => {
  const { workers, port } = await listening(t, 2, { sticky: true, balance: 'daemon' })
  client(t, port, 'GET / HTTP/1.1\r\nHost: x\r\n\r\n')
  await waitFor(() => workers.some((w) => w.conns().length === 1), { what: 'the first request routed' })
  const first = /** @type {typeof workers[0]} */ (workers.find((w) => w.conns().length === 1))
  first.route.took({ seq: first.conns()[0].seq, ok: true })
  client(t, port)
  for (let i = 0; i < 3; i++) client(t, port, 'GET /again HTTP/1.1\r\nHost: x\r\n\r\n')
  await waitFor(() => first.conns().length === 4, { what: 'the same address to the same worker', show: () => workers.map((w) => w.conns().length) })
  assert.equal(workers.reduce((n, w) => n + w.conns().length, 0), 4, 'the silent connection waits for its head')
})

test('the port closes with the last worker listening on it; a listen for a bad port is refused', async (t) => {
  const { workers, port, key } = await listening(t, 2)
  workers[0].route.unlisten({ key })
  const open = await new Promise((resolve) => { const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true) }).on('error', () => resolve(false)) })
  assert.equal(open, true, 'still open while a worker listens')
  workers[1].route.unlisten({ key })
  await waitFor(() => new Promise((resolve) => { net.connect(port, '127.0.0.1', () => resolve(false)).on('error', () => resolve(true)) }), { what: 'the port closed' })
  workers[0].route.listen({ seq: 9, address: '127.0.0.1', port: 70000, addressType: 4, index: 0 })
  assert.deepEqual(workers[0].sent.at(-1), { cmd: 'NODE_SUP', act: 'listened', seq: 9, errno: -22, handle: undefined })
})

test('a port closed by every worker and opened again is the one a worker joining later shares', async (t) => {
  const { router, workers, key } = await listening(t, 2)
  for (const w of workers) w.route.unlisten({ key })
  const port = 0
  workers[0].route.listen({ seq: 2, address: '127.0.0.1', port, addressType: 4, index: 0 })
  const again = await waitFor(() => workers[0].sent.find((m) => m.act === 'listened' && m.seq === 2), { what: 'the listen again answered' })
  const late = fakeWorker(router, 3)
  t.after(() => late.route.leave())
  late.route.listen({ seq: 1, address: '127.0.0.1', port, addressType: 4, index: 0 })
  const joined = await waitFor(() => late.sent.find((m) => m.act === 'listened'), { what: 'the late worker\'s listen answered' })
  assert.equal(joined.errno, undefined)
  assert.equal(joined.sockname.port, again.sockname.port, 'one port for the app')
})
