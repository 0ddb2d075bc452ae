// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import { SupError } from '../../../ipc/errors.js'
import { Connection } from '../../../ipc/transport.js'
import { OPEN } from '../../../ipc/ws-client.js'
import { settle } from '../../helpers/wait.js'

/** A stand-in for the socket: frames sent are kept; answers are given by hand. */
function fakeSocket () {
  const ws = Object.assign(new EventEmitter(), { readyState: OPEN, /** @type {any[]} */ sent: [], send (/** @type {string} */ text) { ws.sent.push(JSON.parse(text)) } })
  const answer = (/** @type {number} */ id, /** @type {object} */ body) => ws.emit('message', Buffer.from(JSON.stringify({ v: 1, id, ...body })))
  return { ws, answer }
}

test('afterHello: requests go out at once, behind hello, and resolve once hello has', async () => {
  const { ws, answer } = fakeSocket()
  const conn = new Connection(/** @type {any} */ (ws))
  conn.afterHello(conn.request('hello', { protocol: 1 }))
  const list = conn.request('app.list')
  assert.deepEqual(ws.sent.map((f) => f.method), ['hello', 'app.list'], 'both sent before any answer')
  answer(2, { ok: true, result: ['row'] })
  let settled = false
  list.then(() => { settled = true })
  await settle()
  assert.equal(settled, false, 'the listing waits for hello')
  answer(1, { ok: true, result: { protocol: 1 } })
  assert.deepEqual(await list, ['row'])
})

test('afterHello: hello\'s error is the one every request reports', async () => {
  const { ws, answer } = fakeSocket()
  const conn = new Connection(/** @type {any} */ (ws))
  conn.afterHello(conn.request('hello', { protocol: 1 }))
  const list = conn.request('app.list')
  answer(2, { ok: true, result: [] })
  answer(1, { ok: false, error: new SupError('SUP_ERR_IPC_VERSION_MISMATCH', { daemon: 2, client: 1 }).toJSON() })
  await assert.rejects(list, { code: 'SUP_ERR_IPC_VERSION_MISMATCH' })
})
