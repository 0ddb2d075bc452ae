// @ts-check
// Sockets from systemd socket activation: which `listen` entry each serves (by address, or by
// a name only one socket carries), given back when an app lets go, never closed; real unix
// and TCP sockets for what the kernel says they are bound to.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { parseListenEntry } from '../../../../ipc/listen.js'
import { HeldSockets } from '../../../../daemon/sockets/held-sockets.js'
import { InheritedSockets, addressMatches, unixPathOf } from '../../../../daemon/sockets/inherited-sockets.js'
import { silentLogger } from '../../../helpers/fake-effects.js'
import { freePort } from '../../../helpers/sup.js'

/** @param {string | number} entry */
const spec = (entry) => /** @type {import('../../../../ipc/listen.js').ListenSpec} */ (parseListenEntry(entry))

test('addressMatches: a listen entry and the address an inherited socket is bound to', () => {
  const cases = [
    [3000, { kind: 'tcp', host: '::', port: 3000 }, true],
    [3000, { kind: 'tcp', host: '0.0.0.0', port: 3000 }, true],
    [3000, { kind: 'tcp', host: '127.0.0.1', port: 3000 }, false],
    ['127.0.0.1:3000', { kind: 'tcp', host: '127.0.0.1', port: 3000 }, true],
    ['localhost:3000', { kind: 'tcp', host: '127.0.0.1', port: 3000 }, true],
    ['127.0.0.1:3000', { kind: 'tcp', host: '127.0.0.1', port: 3001 }, false],
    ['127.0.0.1:3000', { kind: 'tcp', host: '::', port: 3000 }, false],
    ['[::1]:3000', { kind: 'tcp', host: '::1', port: 3000 }, true],
    ['unix:/run/a.sock', { kind: 'unix', path: '/run/a.sock' }, true],
    ['unix:/run/a.sock', { kind: 'unix', path: '/run/b.sock' }, false],
    ['unix:/run/a.sock', { kind: 'tcp', host: '::', port: 3000 }, false],
    [3000, { kind: 'unix', path: '/run/a.sock' }, false],
    [3000, null, false]
  ]
  for (const [entry, address, want] of cases) {
    assert.equal(addressMatches(spec(/** @type {any} */ (entry)), /** @type {any} */ (address)), want, `${entry} vs ${JSON.stringify(address)}`)
  }
})

/**
 * A pool as fromEnv builds it, from fake descriptors.
 * @param {Array<{ name: string, address: any }>} fds
 */
function pool (fds) {
  const env = { LISTEN_PID: '42', LISTEN_FDS: String(fds.length), LISTEN_FDNAMES: fds.map((f) => f.name).join(':') }
  return InheritedSockets.fromEnv(env, 42, { logger: silentLogger, open: (fd) => ({ handle: { fd }, address: fds[fd - 3].address }) })
}

test('claim: by address first, else by a name exactly one free socket carries; each socket to one app at a time', () => {
  const sockets = pool([
    { name: 'sup', address: { kind: 'tcp', host: '127.0.0.1', port: 8080 } },
    { name: 'sup', address: { kind: 'tcp', host: '::', port: 9090 } },
    { name: '127.0.0.1_7070', address: null }
  ])
  assert.equal(sockets.claim(spec(9090), 'b')?.fd, 4)
  assert.equal(sockets.claim(spec(9090), 'c'), null, 'taken already')
  assert.equal(sockets.claim(spec('127.0.0.1:7070'), 'd')?.fd, 5, 'by its name')
  assert.equal(sockets.claim(spec('127.0.0.1:6060'), 'e'), null, 'nothing serves it: the daemon binds it')
  assert.equal(sockets.claim(spec('127.0.0.1:8080'), 'a')?.fd, 3)
  // Two free sockets named "x": a name alone does not say which.
  const twins = pool([{ name: 'x', address: null }, { name: 'x', address: null }])
  assert.equal(twins.claim(spec('unix:/x'), 'a'), null)
})

test('fromEnv: nothing when LISTEN_PID is another process, LISTEN_FDS is missing or not a number; a descriptor that is not a stream socket is left out', () => {
  const open = (/** @type {number} */ fd) => fd === 4 ? { error: 'not a stream socket' } : { handle: {}, address: null }
  for (const env of [{ LISTEN_PID: '41', LISTEN_FDS: '1' }, { LISTEN_PID: '42' }, { LISTEN_PID: '42', LISTEN_FDS: 'x' }, { LISTEN_PID: '42', LISTEN_FDS: '0' }]) {
    assert.equal(InheritedSockets.fromEnv(env, 42, { logger: silentLogger, open }).sockets.length, 0, JSON.stringify(env))
  }
  const taken = InheritedSockets.fromEnv({ LISTEN_PID: '42', LISTEN_FDS: '3', LISTEN_FDNAMES: 'a:b' }, 42, { logger: silentLogger, open })
  assert.deepEqual(taken.sockets.map((s) => [s.fd, s.name]), [[3, 'a'], [5, '']])
})

test('HeldSockets.bind takes a matching inherited socket instead of binding, and close gives it back without closing it', async (t) => {
  const port = await freePort()
  const server = net.createServer()
  await new Promise((resolve) => server.listen(port, '127.0.0.1', () => resolve(undefined)))
  t.after(() => server.close())
  let closed = 0
  const handle = { fd: 99, close: () => closed++ }
  const sockets = InheritedSockets.fromEnv({ LISTEN_PID: '7', LISTEN_FDS: '1' }, 7, { logger: silentLogger, open: () => ({ handle, address: { kind: 'tcp', host: '127.0.0.1', port } }) })
  // The port is taken (by `server`, standing in for systemd): binding it would fail.
  const held = await HeldSockets.bind([`127.0.0.1:${port}`], { app: 'web', inherited: sockets, listenFd: async () => assert.fail('an inherited socket listens already') })
  assert.deepEqual(held.handOver().fds, [3], "systemd's fd 3")
  assert.equal(sockets.sockets[0].app, 'web')
  held.close()
  assert.equal(closed, 0)
  assert.equal(sockets.sockets[0].app, null)
  assert.equal((await HeldSockets.bind([`127.0.0.1:${port}`], { app: 'api', inherited: sockets })).handOver().fds[0], 3, 'the next app gets it')
})

test('unixPathOf: the path a listening unix socket is bound to, from /proc/net/unix', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sup-inherited-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const path = join(dir, 'app.sock')
  const server = net.createServer()
  await new Promise((resolve) => server.listen(path, () => resolve(undefined)))
  t.after(() => server.close())
  assert.equal(unixPathOf(/** @type {any} */ (server)._handle.fd), path)
  assert.equal(unixPathOf(0), null, 'not a socket')
})
