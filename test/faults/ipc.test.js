// @ts-check
// Hostile input on sup.sock at full size (npm run test:faults; the bounded subset is
// test/integration/faults-ipc.test.js). After each case the daemon answers ping within 1 s
// and has lost no app. Figures go to stdout for docs/reliability.md.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { connect } from '../../ipc/transport.js'
import { assertHealthy } from '../helpers/ipc-abuse.js'
import { APPS, useSupHome } from '../helpers/sup.js'

test('sup.sock at full size: 10,000 pipelined requests, 1,000 connections at once', async (t) => {
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
})
