// @ts-check
// Issue 23: @socket.io/cluster-adapter works unchanged in a sup cluster app. The daemon (or,
// for an app on another node binary, that node's primary, daemon/node-runtime/primary.cjs)
// relays the adapter's messages between the app's workers, as the package's setupPrimary()
// does in a hand-written primary: io.emit() in one worker reaches the clients of every
// worker, and io.fetchSockets() gets its answers from all of them. Real packages from npm.
import assert from 'node:assert/strict'
import { chmodSync, copyFileSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { io as connectClient } from 'socket.io-client'
import { APPS, freePort, useSupHome } from '../helpers/sup.js'
import { waitFor, waitForEvent, within } from '../helpers/wait.js'

const WORKERS = 3

/**
 * Connect socket.io clients until every worker of the app holds at least one. A worker may be
 * online before it listens (online after min_uptime); the primary hands connections only to
 * those that listen, so the clients keep coming until each one does.
 * The clients use the websocket transport only: polling's handshake and the requests after it
 * must reach the same worker, which needs sticky sessions (issue 23, another part).
 * @param {import('node:test').TestContext} t
 * @param {number} port
 * @param {number} workers
 */
async function clientsOnEveryWorker (t, port, workers) {
  /** @type {Array<{ socket: import('socket.io-client').Socket, pid: number }>} */
  const clients = []
  t.after(() => { for (const { socket } of clients) socket.close() })
  const pids = new Set()
  let last = 'no client yet'
  await waitFor(async () => {
    const socket = connectClient(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false, forceNew: true })
    /** @type {{ pid: number } | Error} */
    const first = await within(new Promise((resolve) => {
      socket.once('hello', resolve)
      socket.once('connect_error', resolve)
    }), { what: 'socket.io\'s hello from a worker', timeout: 15_000 })
    if (first instanceof Error) {
      last = first.message
      socket.close()
      return false
    }
    clients.push({ socket, pid: first.pid })
    pids.add(first.pid)
    last = `${clients.length} clients on ${pids.size} workers`
    return pids.size === workers
  }, { what: `socket.io clients on all ${workers} workers`, timeout: 30_000, show: () => last })
  return clients
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string[]} extra more `sup start` arguments
 */
async function broadcastReachesEveryWorker (t, extra) {
  const home = useSupHome(t)
  const port = await freePort()
  const started = await home.sup(['start', join(APPS, 'socketio-chat.js'), '-i', String(WORKERS), '--name', 'chat', ...extra], { env: { PORT: String(port) }, timeout: 60_000 })
  assert.equal(started.code, 0, started.stderr)
  const rows = await home.ls()
  const clients = await clientsOnEveryWorker(t, port, WORKERS)
  assert.deepEqual(new Set(clients.map((c) => c.pid)), new Set(rows.map((r) => r.pid)), 'the clients are on the app\'s workers')

  // One client shouts; its worker calls io.emit(); every client, on every worker, hears it.
  const heard = clients.map(({ socket }) => waitForEvent(socket, 'news', { what: 'the broadcast', timeout: 15_000, filter: (news) => news.text === 'hello all' }))
  const [shouter] = clients
  shouter.socket.emit('shout', 'hello all')
  const news = await Promise.all(heard)
  for (const [message] of news) assert.equal(message.from, shouter.pid)

  // A request and its responses: fetchSockets() counts the clients of every worker. The
  // workers learn of each other by the adapter's heartbeats, which go through the relay too.
  await waitFor(async () => {
    const count = await within(shouter.socket.emitWithAck('count'), { what: 'the count', timeout: 10_000 })
    return count === clients.length
  }, { what: `fetchSockets() to count all ${clients.length} clients`, timeout: 30_000 })
}

test(`@socket.io/cluster-adapter: io.emit in one worker reaches the clients of all ${WORKERS} workers (the daemon is the primary)`, async (t) => {
  await broadcastReachesEveryWorker(t, [])
})

test('@socket.io/cluster-adapter on another node binary: its primary (primary.cjs) relays between the app\'s workers', async (t) => {
  // A copy of this node is another binary to sup: the app's workers are forked by a primary
  // running it, as for an app on node@22 (test/integration/node-runtime.test.js).
  const dir = mkdtempSync(join(tmpdir(), 'sup-relay-node-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const node = join(dir, 'node')
  copyFileSync(process.execPath, node)
  chmodSync(node, 0o755)
  await broadcastReachesEveryWorker(t, ['--interpreter', node])
})
