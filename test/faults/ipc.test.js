// @ts-check
// Hostile input on sup.sock at full size (npm run test:faults; the bounded subset is
// test/integration/faults-ipc.test.js). After each case the daemon answers ping within 1 s
// and has lost no app. Figures go to stdout for docs/reliability.md.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { readFileSync } from 'node:fs'
import { readDaemonPid } from '../../client/daemon.js'
import { IPC_LIMITS } from '../../ipc/protocol.js'
import { connect } from '../../ipc/transport.js'
import { encodeFrame, OPCODES } from '../../ipc/ws-client.js'
import { assertHealthy, closeCodeIn, untilClosed, upgradedSocket } from '../helpers/ipc-abuse.js'
import { APPS, useSupHome } from '../helpers/sup.js'

test('sup.sock at full size: 10,000 pipelined requests, 1,000 connections, the connection limit, a client that never reads', async (t) => {
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
  await t.test(`past ${IPC_LIMITS.maxConnections} connections the idlest are closed with SUP_ERR_IPC_TOO_MANY_CONNECTIONS and the CLI still gets in`, async () => {
    // A subscriber (a monit) from before the flood is never the one closed.
    const monit = await connect(socket)
    t.after(() => monit.close())
    await monit.request('subscribe', { topics: ['metrics'] })
    const extra = 10
    /** @type {import('../../ipc/transport.js').Connection[]} */
    const conns = []
    t.after(() => Promise.all(conns.map((c) => c.close())))
    // In steps, so that which connection is the idlest is well defined.
    for (let i = 0; i < IPC_LIMITS.maxConnections + extra; i += 100) {
      conns.push(...await Promise.all(Array.from({ length: Math.min(100, IPC_LIMITS.maxConnections + extra - i) }, () => connect(socket))))
    }
    const ls = await home.sup(['ls', '--json'])
    assert.equal(ls.code, 0, `the CLI was refused: ${ls.stderr}`)
    const results = await Promise.allSettled(conns.map((c) => c.request('daemon.ping')))
    const refused = results.flatMap((r, i) => r.status === 'rejected' ? [{ i, code: r.reason.code }] : [])
    for (const r of refused) assert.equal(r.code, 'SUP_ERR_IPC_TOO_MANY_CONNECTIONS', `connection ${r.i}`)
    // The monit, the CLI and 1,034 others: at least 11 of the others had to go, the first ones.
    assert.ok(refused.length >= extra + 1, `${refused.length} closed`)
    assert.ok(refused.every((r) => r.i < 200), `closed: ${refused.map((r) => r.i).join(',')}`)
    assert.equal((await monit.request('daemon.ping')).pong, true, 'the subscriber was kept')
    await Promise.all(conns.map((c) => c.close()))
    const took = await assertHealthy(socket, before)
    console.log(`${conns.length} connections + a subscriber + the CLI: ${refused.length} idlest closed with 4013; ping after ${took} ms`)
  })

  await t.test('a client that sends and never reads is closed with 4009 once 16 MiB of answers wait; the daemon\'s memory stays bounded', async () => {
    const daemonPid = /** @type {number} */ (readDaemonPid(home.paths))
    const rssBefore = rssKiB(daemonPid)
    const s = await upgradedSocket(socket)
    t.after(() => s.destroy())
    s.pause()
    const request = encodeFrame(OPCODES.text, Buffer.from('{"v":1,"id":1,"method":"app.list"}'))
    const batch = Buffer.concat(Array.from({ length: 1000 }, () => request))
    let sent = 0
    let peak = rssBefore
    // Each answer is a few hundred bytes: 100,000 requests are several times the limit.
    while (sent < 100_000 && !s.destroyed) {
      const ok = s.write(batch)
      sent += 1000
      peak = Math.max(peak, rssKiB(daemonPid))
      if (!ok) await drained(s)
    }
    // The daemon answers others while the answers of this one wait.
    const tookDuring = await assertHealthy(socket, before)
    const seen = untilClosed(s, 60_000)
    s.resume()
    const { data, closed } = await seen
    assert.ok(closed, 'the daemon ended the connection')
    assert.equal(closeCodeIn(data), 4009)
    assert.ok(data.length < 64 * 1024 * 1024, `${data.length} bytes of answers were kept for the client`)
    const took = await assertHealthy(socket, before)
    const grew = (peak - rssBefore) / 1024
    assert.ok(grew < 128, `daemon RSS grew ${grew.toFixed(1)} MiB`)
    console.log(`slow reader: ${sent} requests sent, closed with 4009 after ${(data.length / 1048576).toFixed(1)} MiB of answers; daemon RSS peak +${grew.toFixed(1)} MiB; ping during ${tookDuring} ms, after ${took} ms`)
  })
})

/**
 * @param {number} pid
 * @returns {number} resident set size in KiB
 */
function rssKiB (pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'))
  return Number(line?.match(/\d+/)?.[0] ?? 0)
}

/** @param {import('node:net').Socket} s */
function drained (s) {
  return new Promise((resolve) => {
    const done = () => { s.off('drain', done); s.off('close', done); resolve(undefined) }
    s.on('drain', done)
    s.on('close', done)
  })
}
