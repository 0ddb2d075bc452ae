// @ts-check
// Real sockets on 127.0.0.1 and in a temp folder: bound and listening in this process without
// ever being accepted here, handed over as fds 3, 4, … with the systemd variables.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { HeldSockets } from '../../../../daemon/sockets/held-sockets.js'
import { withListenPid } from '../../../../daemon/worker/spawn.js'
import { freePort } from '../../../helpers/sup.js'

/**
 * Connect and resolve once the kernel has completed the handshake (accepted or not).
 * @param {net.NetConnectOpts} options
 * @returns {Promise<net.Socket>}
 */
function connect (options) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(options)
    socket.once('connect', () => resolve(socket))
    socket.once('error', reject)
  })
}

/**
 * Run `node -e code` with the held sockets as fds 3, … and its stdout back.
 * @param {HeldSockets} held
 * @param {string} code
 */
function child (held, code) {
  const { fds, env } = held.handOver()
  const cmd = withListenPid({ command: process.execPath, args: ['-e', code], node: true })
  return new Promise((resolve, reject) => {
    const proc = spawn(cmd.command, cmd.args, { stdio: ['ignore', 'pipe', 'inherit', ...fds], env: { ...process.env, ...env } })
    let out = ''
    proc.stdout.on('data', (d) => { out += d })
    proc.on('error', reject)
    proc.on('exit', (code) => code === 0 ? resolve(out) : reject(new Error(`child exited with ${code}: ${out}`)))
  })
}

test('a held TCP socket listens (the kernel completes connections) but this process never accepts them', async (t) => {
  const port = await freePort()
  const held = await HeldSockets.bind([`127.0.0.1:${port}`], { app: 'web' })
  t.after(() => held.close())
  const client = await connect({ host: '127.0.0.1', port })
  t.after(() => client.destroy())
  const reply = new Promise((resolve) => {
    let data = ''
    client.on('data', (d) => { data += d })
    client.on('end', () => resolve(data))
  })
  // A child that accepts from fd 3 gets the connection made before it existed.
  const out = await child(held, `
    const server = require('node:net').createServer((s) => { s.end('served'); server.close() })
    server.listen({ fd: 3 })`)
  assert.equal(out, '')
  assert.equal(await reply, 'served')
})

test('hand-over: fds in order, LISTEN_FDS, LISTEN_FDNAMES, LISTEN_PID set to the child\'s own pid by the exec wrapper', async (t) => {
  const a = await freePort(2)
  const b = a + 1
  const dir = mkdtempSync(join(tmpdir(), 'sup-held-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const sock = join(dir, 'app.sock')
  const held = await HeldSockets.bind([`127.0.0.1:${a}`, String(b), `unix:${sock}`], { app: 'web' })
  t.after(() => held.close())
  const handOver = held.handOver()
  assert.equal(handOver.fds.length, 3)
  assert.deepEqual(handOver.env, { LISTEN_FDS: '3', LISTEN_FDNAMES: `127.0.0.1_${a}:${b}:unix__${sock.slice(1).replace(/[^A-Za-z0-9_.-]/g, '_')}` })
  assert.deepEqual(JSON.parse(handOver.agent), [{ fd: 3, host: '127.0.0.1', port: a }, { fd: 4, host: null, port: b }, { fd: 5, path: sock }])
  const out = await child(held, `
    const fs = require('node:fs')
    const kinds = [3, 4, 5].map((fd) => fs.fstatSync(fd).isSocket())
    console.log(JSON.stringify({ pid: process.pid, env: process.env.LISTEN_PID, kinds }))`)
  const seen = JSON.parse(String(out))
  assert.equal(seen.env, String(seen.pid))
  assert.deepEqual(seen.kinds, [true, true, true])
  assert.ok(statSync(sock).isSocket())
  held.close()
  assert.equal(statSync(sock, { throwIfNoEntry: false }), undefined, 'close removes the socket file')
})

test('an address in use fails with SUP_ERR_LISTEN_FAILED, and what was bound before it is closed', async (t) => {
  const free = await freePort(2)
  const busy = free + 1
  const other = net.createServer()
  await new Promise((resolve) => other.listen(busy, '127.0.0.1', () => resolve(undefined)))
  t.after(() => other.close())
  await assert.rejects(HeldSockets.bind([`127.0.0.1:${free}`, `127.0.0.1:${busy}`], { app: 'web' }), {
    code: 'SUP_ERR_LISTEN_FAILED',
    message: `cannot listen on 127.0.0.1:${busy} for app "web": the address is in use (another process listens there; stop it or pick another address)`
  })
  await assert.rejects(HeldSockets.bind([String(busy)], { app: 'web' }), { code: 'SUP_ERR_LISTEN_FAILED' })
  // The first one was released: it binds again.
  const again = await HeldSockets.bind([`127.0.0.1:${free}`], { app: 'web' })
  again.close()
})

test('a host that is not an IP address is refused; a stale unix socket file is replaced, a regular file is not', async (t) => {
  await assert.rejects(HeldSockets.bind(['example.com:8080'], { app: 'web' }), /the host must be an IP address or "localhost"/)
  const dir = mkdtempSync(join(tmpdir(), 'sup-held-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const stale = join(dir, 'stale.sock')
  // A process killed while it listened leaves its socket file behind.
  spawnSync(process.execPath, ['-e', `require('node:net').createServer().listen(${JSON.stringify(stale)}, () => process.kill(process.pid, 'SIGKILL'))`])
  assert.ok(statSync(stale).isSocket())
  const replaced = await HeldSockets.bind([`unix:${stale}`], { app: 'web' })
  replaced.close()
  const file = join(dir, 'file.sock')
  writeFileSync(file, 'not a socket')
  await assert.rejects(HeldSockets.bind([`unix:${file}`], { app: 'web' }), /a file that is not a socket is in the way/)
})

test('a listen failure reported by the helper closes the sockets and names the reason', async (t) => {
  const port = await freePort()
  await assert.rejects(HeldSockets.bind([`127.0.0.1:${port}`], { app: 'web', listenFd: async () => ({ status: 1, stderr: 'EACCES' }) }), {
    message: `cannot listen on 127.0.0.1:${port} for app "web": permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE; for a unix socket, check its folder)`
  })
  const after = await HeldSockets.bind([`127.0.0.1:${port}`], { app: 'web' })
  after.close()
})

test('binding waits for the listen helper without blocking the event loop', async (t) => {
  const port = await freePort()
  let turns = 0
  const ticker = setInterval(() => { turns++ }, 1)
  t.after(() => clearInterval(ticker))
  const held = await HeldSockets.bind([`127.0.0.1:${port}`], { app: 'web' })
  held.close()
  assert.ok(turns > 0, 'timers fired while the helper ran')
})
