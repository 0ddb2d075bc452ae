// @ts-check
// The checks against real servers on 127.0.0.1 and real commands.
import assert from 'node:assert/strict'
import { createServer } from 'node:http'
import net from 'node:net'
import { test } from 'node:test'
import { checkFor } from '../../../../daemon/worker/checks.js'
import { freePort } from '../../../helpers/sup.js'

/** @type {import('../../../../daemon/worker/checks.js').ProbeTarget} */
const base = { type: 'http', host: '127.0.0.1', port: null, path: '/', status: null, command: [] }
const context = { cwd: process.cwd(), env: { PATH: process.env.PATH ?? '' } }
const never = new AbortController().signal

test('http: 2xx/3xx pass by default, an expected status must match, others fail with what was answered', async (t) => {
  const server = createServer((req, res) => {
    res.statusCode = req.url === '/ok' ? 200 : req.url === '/moved' ? 302 : req.url === '/teapot' ? 418 : 503
    res.end()
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => server.close())
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  /** @type {Array<[string, number | null, unknown]>} */
  const rows = [
    ['/ok', null, { ok: true }],
    ['/moved', null, { ok: true }],
    ['/down', null, { ok: false, reason: 'GET /down answered 503' }],
    ['/teapot', 418, { ok: true }],
    ['/ok', 418, { ok: false, reason: 'GET /ok answered 200, expected 418' }]
  ]
  for (const [path, status, expected] of rows) {
    assert.deepEqual(await checkFor({ ...base, port, path, status }, context)(never), expected, `${path} ${status}`)
  }
})

test('http and tcp: nothing listening fails with ECONNREFUSED', async () => {
  const port = await freePort()
  assert.deepEqual(await checkFor({ ...base, port, path: '/healthz' }, context)(never), { ok: false, reason: 'GET /healthz: ECONNREFUSED' })
  assert.deepEqual(await checkFor({ ...base, type: 'tcp', port }, context)(never), { ok: false, reason: `connect 127.0.0.1:${port}: ECONNREFUSED` })
})

test('tcp: a listening port passes', async (t) => {
  const server = net.createServer((s) => s.end())
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => server.close())
  const port = /** @type {net.AddressInfo} */ (server.address()).port
  assert.deepEqual(await checkFor({ ...base, type: 'tcp', port }, context)(never), { ok: true })
})

test('exec: exit 0 passes, another code or a missing command fails, abort kills it', async () => {
  const exec = (/** @type {string[]} */ command, signal = never) => checkFor({ ...base, type: 'exec', command }, context)(signal)
  assert.deepEqual(await exec([process.execPath, '-e', 'process.exit(0)']), { ok: true })
  assert.deepEqual(await exec([process.execPath, '-e', 'process.exit(3)']), { ok: false, reason: `${process.execPath} -e process.exit(3) exited with code 3` })
  assert.deepEqual(await exec(['sup-no-such-command']), { ok: false, reason: 'sup-no-such-command: ENOENT' })
  const controller = new AbortController()
  const pending = exec([process.execPath, '-e', 'setTimeout(() => {}, 60000)'], controller.signal)
  controller.abort()
  const result = await pending
  assert.equal(result.ok, false)
})
