// @ts-check
// Hostile input on sup.sock, at sizes that fit npm test (docs/reliability.md): after each
// case the daemon answers ping within 1 s, has lost no app, and the CLI still works.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { chmodSync, statSync } from 'node:fs'
import { test } from 'node:test'
import fc from 'fast-check'
import { join } from 'node:path'
import { METHODS } from '../../ipc/methods.js'
import { IPC_LIMITS } from '../../ipc/protocol.js'
import { validate } from '../../ipc/schema.js'
import { connect } from '../../ipc/transport.js'
import { APPS, SUP_BIN, useSupHome } from '../helpers/sup.js'
import { assertHealthy, closeCodeIn, frameHeader, rawSocket, untilClosed, upgradedSocket } from '../helpers/ipc-abuse.js'

test('the daemon survives hostile clients on its socket and keeps serving the CLI', async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', join(APPS, 'signal-logger.js'), '--name', 'calm'])
  assert.equal(start.code, 0, start.stderr)
  const before = await home.ls()
  const socket = home.paths.socket

  await t.test('garbage bytes: the connection is dropped', async () => {
    const s = await rawSocket(socket)
    s.write(Buffer.from([0, 255, 13, 10, 13, 10, 1, 2, 3, 0x80, 0xfe]))
    const seen = await untilClosed(s, 5000)
    assert.ok(seen.closed, 'the daemon closed a connection that sent garbage')
    await assertHealthy(socket, before)
  })

  await t.test('a plain HTTP client gets 426 Upgrade Required', async () => {
    const s = await rawSocket(socket)
    s.write('GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n')
    const seen = await untilClosed(s, 5000)
    assert.match(seen.data.toString(), /^HTTP\/1\.1 426/)
    await assertHealthy(socket, before)
  })

  await t.test('a frame announcing 200 MB: closed with 1009 before it is read', async () => {
    const s = await upgradedSocket(socket)
    s.write(frameHeader(200 * 1024 * 1024))
    s.write(Buffer.alloc(64 * 1024, 0x61))
    const seen = await untilClosed(s, 5000)
    assert.equal(closeCodeIn(seen.data), 1009)
    await assertHealthy(socket, before)
  })

  await t.test('a 17 MiB request through the client fails with SUP_ERR_IPC_FRAME_TOO_LARGE', async () => {
    const conn = await connect(socket)
    await assert.rejects(conn.request('daemon.ping', { pad: 'x'.repeat(17 * 1024 * 1024) }), { code: 'SUP_ERR_IPC_FRAME_TOO_LARGE' })
    await assertHealthy(socket, before)
  })

  await t.test('deeply nested JSON gets a coded answer', async () => {
    const conn = await connect(socket)
    t.after(() => conn.close())
    const depth = 100_000
    const nested = '['.repeat(depth) + ']'.repeat(depth)
    const answers = []
    for (const params of [nested, `{"targets":${nested}}`]) {
      conn.ws.send(`{"v":1,"id":${answers.length + 1},"method":"app.stop","params":${params}}`)
      answers.push(await nextAnswer(conn))
    }
    conn.ws.send(`{"v":1,"id":9,"method":"app.stop","x":${nested}}`)
    answers.push(await nextAnswer(conn))
    for (const answer of answers) {
      assert.equal(answer.ok, false)
      assert.match(answer.error.code, /^SUP_ERR_IPC_(INVALID_PARAMS|BAD_MESSAGE)$/, JSON.stringify(answer.error))
    }
    await assertHealthy(socket, before)
  })

  await t.test('2,000 requests pipelined on one connection are each answered once', async () => {
    const conn = await connect(socket)
    t.after(() => conn.close())
    const results = await Promise.allSettled(Array.from({ length: 2000 }, () => conn.request('daemon.ping')))
    for (const r of results) {
      if (r.status === 'rejected') assert.equal(/** @type {any} */ (r.reason).code, 'SUP_ERR_IPC_TOO_MANY_REQUESTS')
    }
    assert.ok(results.some((r) => r.status === 'fulfilled'))
    await assertHealthy(socket, before)
  })

  await t.test('unknown methods and wrongly typed params (fast-check) get coded errors', async () => {
    const conn = await connect(socket)
    t.after(() => conn.close())
    const methods = Object.keys(METHODS).filter((m) => m !== 'daemon.kill')
    let tried = 0
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...methods), fc.anything({ maxDepth: 3, withNullPrototype: true }),
      async (method, raw) => {
        const params = JSON.parse(JSON.stringify({ p: raw })).p ?? {}
        // Only input the schema refuses: a valid one would really run the method.
        fc.pre(validate(METHODS[method], params) !== null)
        tried++
        await assert.rejects(conn.request(method, params), { code: 'SUP_ERR_IPC_INVALID_PARAMS' })
      }), { numRuns: 300 })
    await fc.assert(fc.asyncProperty(fc.string(), async (method) => {
      fc.pre(!Object.hasOwn(METHODS, method))
      await assert.rejects(conn.request(method), { code: 'SUP_ERR_IPC_UNKNOWN_METHOD' })
    }), { numRuns: 100 })
    assert.ok(tried > 100, `${tried} wrong params tried`)
    await assertHealthy(socket, before)
  })

  await t.test('a client that connects and sends nothing is dropped after the 10 s handshake limit', async () => {
    const s = await rawSocket(socket)
    const [seen] = await Promise.all([untilClosed(s, 25_000), assertHealthy(socket, before)])
    assert.ok(seen.closed, 'the silent connection was closed')
    assert.ok(seen.ms >= IPC_LIMITS.handshakeMs - 1000, `closed after ${seen.ms} ms`)
    await assertHealthy(socket, before)
  })

  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  assert.match(ls.stdout, /calm/)
})

/**
 * The next frame the daemon sends on this connection, parsed.
 * @param {import('../../ipc/transport.js').Connection} conn
 * @returns {Promise<any>}
 */
function nextAnswer (conn) {
  return new Promise((resolve) => conn.ws.once('message', (data) => resolve(JSON.parse(data.toString()))))
}

test('only the daemon\'s own user can connect: another uid is refused by the home check, and by the socket\'s mode below it', async (t) => {
  if (process.getuid?.() !== 0) return t.skip('needs root, to run the CLI as nobody with setpriv')
  const home = useSupHome(t)
  const ping = await home.sup(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
  assert.equal(statSync(home.paths.socket).mode & 0o777, 0o600)
  chmodSync(home.home, 0o755)
  /** @param {string[]} argv */
  const asNobody = (argv) => new Promise((resolve) => {
    execFile('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, ...argv],
      { env: home.env, timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err?.code, stdout, stderr }))
  })
  // The CLI refuses a home that is not its user's before it tries the socket (docs/reliability.md).
  const ls = await asNobody([SUP_BIN, 'ls'])
  assert.equal(ls.code, 1, ls.stderr)
  assert.match(ls.stderr, /^sup: SUP_HOME .* belongs to root, not to nobody/)
  assert.equal(ls.stderr.trim().split('\n').length, 1)
  // Even with SUP_HOME opened to everyone, the socket's own mode keeps other users out.
  const raw = await asNobody(['-e', `require('node:net').connect(${JSON.stringify(home.paths.socket)}).on('connect', () => process.exit(0)).on('error', (e) => { console.error(e.code); process.exit(1) })`])
  assert.equal(raw.code, 1, raw.stderr)
  assert.equal(raw.stderr.trim(), 'EACCES')
  const owner = await home.sup(['ls'])
  assert.equal(owner.code, 0, owner.stderr)
})
