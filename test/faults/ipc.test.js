// @ts-check
// Hostile input on sup.sock at full size (npm run test:faults; the bounded subset is
// test/integration/faults-ipc.test.js). After each case the daemon answers ping within 1 s
// and has lost no app. Figures go to stdout for docs/reliability.md.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { IPC_LIMITS } from '../../ipc/protocol.js'
import { connect } from '../../ipc/transport.js'
import { assertHealthy, closeCodeIn, untilClosed, upgradedSocket } from '../helpers/ipc-abuse.js'
import { APPS, useSupHome } from '../helpers/sup.js'

test('sup.sock at full size: pipelining, 1,000 connections, the connection limit, a reader that never reads', async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', join(APPS, 'signal-logger.js'), '--name', 'calm'])
  assert.equal(start.code, 0, start.stderr)
  const before = await home.ls()
  const socket = home.paths.socket

  await t.test('10,000 requests pipelined on one connection: each answered once, ok or SUP_ERR_IPC_TOO_MANY_REQUESTS', async () => {
    const conn = await connect(socket)
    t.after(() => conn.close())
    const started = Date.now()
    const results = await Promise.allSettled(Array.from({ length: 10_000 }, () => conn.request('daemon.ping')))
    const refused = results.filter((r) => r.status === 'rejected')
    for (const r of refused) assert.equal(/** @type {any} */ (r).reason.code, 'SUP_ERR_IPC_TOO_MANY_REQUESTS')
    console.log(`pipelined 10000: ${results.length - refused.length} ok, ${refused.length} refused, ${Date.now() - started} ms`)
    const took = await assertHealthy(socket, before)
    console.log(`pipelined 10000: ping after ${took} ms`)
  })

  await t.test('1,000 connections at once all get answers; the CLI works meanwhile', async () => {
    const started = Date.now()
    const conns = await Promise.all(Array.from({ length: 1000 }, () => connect(socket)))
    t.after(() => Promise.all(conns.map((c) => c.close())))
    const [pongs, ls] = await Promise.all([Promise.all(conns.map((c) => c.request('daemon.ping'))), home.sup(['ls', '--json'])])
    assert.equal(pongs.length, 1000)
    assert.equal(ls.code, 0, ls.stderr)
    const took = await assertHealthy(socket, before)
    console.log(`1000 connections: open and answered in ${Date.now() - started} ms; ping after ${took} ms`)
    await Promise.all(conns.map((c) => c.close()))
  })

  await t.test(`past ${IPC_LIMITS.maxConnections} connections the next is refused with SUP_ERR_IPC_TOO_MANY_CONNECTIONS`, async () => {
    const conns = await Promise.all(Array.from({ length: IPC_LIMITS.maxConnections + 10 }, () => connect(socket)))
    t.after(() => Promise.all(conns.map((c) => c.close())))
    const results = await Promise.allSettled(conns.map((c) => c.request('daemon.ping')))
    const refused = results.filter((r) => r.status === 'rejected')
    assert.ok(refused.length >= 10, `${refused.length} refused`)
    for (const r of refused) assert.equal(/** @type {any} */ (r).reason.code, 'SUP_ERR_IPC_TOO_MANY_CONNECTIONS')
    await Promise.all(conns.map((c) => c.close()))
    const took = await assertHealthy(socket, before)
    console.log(`${conns.length} connections: ${refused.length} refused; ping after ${took} ms`)
  })

  await t.test('a client that sends and never reads is closed with 4009 once 16 MiB of answers wait', async () => {
    const s = await upgradedSocket(socket)
    s.pause()
    const request = (await import('../../ipc/ws-client.js')).encodeFrame(1, Buffer.from('{"v":1,"id":1,"method":"app.list"}'))
    let sent = 0
    // Each answer is a few hundred bytes: 200,000 requests are several times the limit.
    while (sent < 200_000 && !s.destroyed) {
      const ok = s.write(Buffer.concat(Array.from({ length: 1000 }, () => request)))
      sent += 1000
      if (!ok) {
        await new Promise((resolve) => {
          const done = () => { s.off('drain', done); s.off('close', done); resolve(undefined) }
          s.on('drain', done)
          s.on('close', done)
        })
      }
    }
    const seen = untilClosed(s, 60_000)
    s.resume()
    const { data, closed } = await seen
    assert.ok(closed)
    assert.equal(closeCodeIn(data), 4009)
    const took = await assertHealthy(socket, before)
    console.log(`slow reader: closed after ${sent} requests, ${data.length} bytes of answers delivered; ping after ${took} ms`)
  })
})
