// @ts-check
// The relay of @socket.io/cluster-adapter's messages: who gets what, its bounds, and what it
// does with messages that are not well-formed (every worker message is hostile, design §12).
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'

const require = createRequire(import.meta.url)
/** @type {typeof import('../../../../daemon/relay/adapter-relay.cjs')} */
const { ADAPTER_SOURCE, RELAY_LIMITS, createAdapterRelay } = require('../../../../daemon/relay/adapter-relay.cjs')

/**
 * A worker's end of the relay: what it was sent, and the write callbacks not yet called
 * (a worker that does not read leaves them pending).
 * @param {{ connected?: boolean, autoDone?: boolean }} [o]
 */
function port ({ connected = true, autoDone = true } = {}) {
  /** @type {unknown[]} */
  const got = []
  /** @type {Array<() => void>} */
  const pending = []
  return {
    got,
    pending,
    connected: () => connected,
    send: (/** @type {unknown} */ message, /** @type {() => void} */ done) => {
      got.push(message)
      if (autoDone) done()
      else pending.push(done)
    }
  }
}

/** @param {Record<string, unknown>} [o] */
const msg = (o = {}) => ({ source: ADAPTER_SOURCE, uid: 'a1', nsp: '/', type: 3, data: { packet: { type: 2, data: ['hello'] } }, ...o })

test('a broadcast goes to the other workers of the same app only, never back to its sender', () => {
  const relay = createAdapterRelay()
  const [a, b, c, other] = [port(), port(), port(), port()]
  const ma = relay.join('chat', a)
  relay.join('chat', b)
  relay.join('chat', c)
  relay.join('billing', other)
  assert.equal(relay.receive(ma, msg()), true)
  assert.deepEqual([a.got.length, b.got.length, c.got.length, other.got.length], [0, 1, 1, 0])
  assert.deepEqual(b.got[0], msg())
  assert.equal(relay.counts.relayed, 2)
})

test('a response goes to the worker that asked (known by its adapter uid), else to all others', () => {
  const relay = createAdapterRelay()
  const [a, b, c] = [port(), port(), port()]
  const ma = relay.join('chat', a)
  const mb = relay.join('chat', b)
  relay.join('chat', c)
  // a asks (fetchSockets); b answers to a's uid.
  relay.receive(ma, msg({ uid: 'uid-a', type: 7 }))
  relay.receive(mb, msg({ uid: 'uid-b', type: 8, requesterUid: 'uid-a', data: { requestId: 'r1', sockets: [] } }))
  assert.equal(a.got.length, 1)
  assert.equal(c.got.length, 1, 'c saw only the request')
  // A requester nobody knows: every other worker gets it, and drops what it did not ask for.
  relay.receive(mb, msg({ uid: 'uid-b', type: 12, requesterUid: 'uid-zzz', data: { requestId: 'r2' } }))
  assert.equal(a.got.length, 2)
  assert.equal(c.got.length, 2)
})

test('messages that are not the adapter\'s are left to the caller', () => {
  const relay = createAdapterRelay()
  const m = relay.join('chat', port())
  for (const message of ['ready', null, 42, ['_sio_adapter'], { sup: 'metrics' }, { source: 'other', uid: 'x', type: 3 }]) {
    assert.equal(relay.receive(m, message), false, JSON.stringify(message))
  }
})

test('malformed adapter messages are refused, relayed to nobody, and never throw', () => {
  const relay = createAdapterRelay()
  const [a, b] = [port(), port()]
  const ma = relay.join('chat', a)
  relay.join('chat', b)
  const cyclic = msg()
  cyclic.self = cyclic
  const bad = [
    msg({ uid: undefined }),
    msg({ uid: 7 }),
    msg({ uid: '' }),
    msg({ uid: 'u'.repeat(RELAY_LIMITS.uidLength + 1) }),
    msg({ type: '3' }),
    msg({ type: 3.5 }),
    msg({ type: null }),
    msg({ requesterUid: { toString: null } }),
    msg({ requesterUid: 5 }),
    // Only possible in-process (IPC messages are parsed JSON), but must not throw either.
    cyclic,
    msg({ data: { big: 1n } })
  ]
  for (const message of bad) assert.equal(relay.receive(ma, message), true)
  assert.equal(b.got.length, 0)
  assert.equal(relay.counts.refused, bad.length)
  // The relay still works afterwards.
  relay.receive(ma, msg())
  assert.equal(b.got.length, 1)
})

test('a message larger than messageBytes is refused', () => {
  const relay = createAdapterRelay({ messageBytes: 1000 })
  const [a, b] = [port(), port()]
  const ma = relay.join('chat', a)
  relay.join('chat', b)
  relay.receive(ma, msg({ data: 'x'.repeat(1000) }))
  assert.equal(b.got.length, 0)
  assert.equal(relay.counts.refused, 1)
  relay.receive(ma, msg({ data: 'x'.repeat(100) }))
  assert.equal(b.got.length, 1)
})

test('a worker that does not read: what waits for it stays under backlogBytes, the rest is dropped, and it resumes once written', () => {
  const backlogBytes = 10_000
  const relay = createAdapterRelay({ backlogBytes })
  const sender = port()
  const slow = port({ autoDone: false })
  const fast = port()
  const ms = relay.join('chat', sender)
  const mslow = relay.join('chat', slow)
  relay.join('chat', fast)
  const flood = msg({ data: 'x'.repeat(900) })
  const bytes = Buffer.byteLength(JSON.stringify(flood))
  for (let i = 0; i < 1000; i++) relay.receive(ms, flood)
  assert.equal(fast.got.length, 1000, 'a worker that reads gets every message')
  assert.equal(slow.got.length, Math.floor(backlogBytes / bytes))
  assert.ok(mslow.backlog <= backlogBytes)
  assert.equal(mslow.dropped, 1000 - slow.got.length)
  assert.equal(relay.counts.dropped, mslow.dropped)
  // Written at last: room again.
  for (const done of slow.pending.splice(0)) done()
  assert.equal(mslow.backlog, 0)
  relay.receive(ms, flood)
  assert.equal(slow.got.length, Math.floor(backlogBytes / bytes) + 1)
})

test('the first message dropped for a worker is said once, whatever follows', () => {
  const relay = createAdapterRelay({ backlogBytes: 1000 })
  const sender = relay.join('chat', port())
  let said = 0
  const slow = { ...port({ autoDone: false }), dropping: () => { said++ } }
  relay.join('chat', slow)
  const throwing = { ...port({ autoDone: false }), dropping: () => { throw new Error('a listener that throws') } }
  relay.join('chat', throwing)
  for (let i = 0; i < 50; i++) assert.doesNotThrow(() => relay.receive(sender, msg({ data: 'x'.repeat(300) })))
  assert.equal(said, 1)
})

test('a write callback called twice, a send that throws and a closed channel leave the backlog right', () => {
  const relay = createAdapterRelay()
  const sender = relay.join('chat', port())
  const twice = { connected: () => true, send: (/** @type {unknown} */ m, /** @type {() => void} */ done) => { done(); done() } }
  const throws = { connected: () => true, send: () => { throw new Error('channel closed') } }
  const closed = port({ connected: false })
  const [mt, mx] = [relay.join('chat', twice), relay.join('chat', throws)]
  relay.join('chat', closed)
  assert.doesNotThrow(() => relay.receive(sender, msg()))
  assert.equal(mt.backlog, 0)
  assert.equal(mx.backlog, 0)
  assert.equal(closed.got.length, 0)
})

test('a worker\'s remembered adapter ids are bounded', () => {
  const relay = createAdapterRelay({ uidsPerWorker: 4 })
  const m = relay.join('chat', port())
  relay.join('chat', port())
  for (let i = 0; i < 100; i++) relay.receive(m, msg({ uid: `u${i}` }))
  assert.equal(m.uids.size, 4)
})

test('a worker that leaves gets nothing more; an app with none left is forgotten', () => {
  const relay = createAdapterRelay()
  const [a, b] = [port(), port()]
  const ma = relay.join('chat', a)
  const mb = relay.join('chat', b)
  relay.leave(mb)
  relay.leave(mb)
  relay.receive(ma, msg())
  assert.equal(b.got.length, 0)
  relay.leave(ma)
  const c = port()
  const mc = relay.join('chat', c)
  relay.receive(mc, msg())
  assert.equal(c.got.length, 0)
})
