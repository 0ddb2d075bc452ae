// @ts-check
// SUP_BALANCE / --balance: who accepts a cluster app's connections. Under "rr" only the
// daemon holds the listening socket and hands connections out; under "os" every worker
// holds it and accepts for itself. Either way both workers serve.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, httpGet, useSupHome } from '../helpers/sup.js'

/**
 * Inode of the socket listening on 127.0.0.1:port (from /proc/net/tcp).
 * @param {number} port
 */
function listeningInode (port) {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/)
    if (fields[1] === local && fields[3] === '0A') return fields[9]
  }
  return null
}

/**
 * Does this process hold the socket with that inode?
 * @param {number} pid
 * @param {string} inode
 */
function holdsSocket (pid, inode) {
  return readdirSync(`/proc/${pid}/fd`).some((fd) => {
    try { return readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]` } catch { return false }
  })
}

/**
 * GET on fresh connections until `count` distinct pids answered (bounded).
 * @param {number} port
 * @param {number} count
 */
async function answeringPids (port, count) {
  const pids = new Set()
  for (let i = 0; i < 300 && pids.size < count; i++) pids.add(JSON.parse((await httpGet(port)).body).pid)
  return pids
}

for (const balance of /** @type {const} */ (['rr', 'os'])) {
  test(`SUP_BALANCE=${balance}: ${balance === 'rr' ? 'the daemon alone' : 'every worker'} holds the listening socket, both workers serve`, { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
    const home = useSupHome(t)
    const port = await freePort()
    const env = { SUP_BALANCE: balance, PORT: String(port) }
    const ping = await home.sup(['ping', '--json'], { env })
    assert.equal(ping.code, 0, ping.stderr)
    const daemon = JSON.parse(ping.stdout)
    assert.equal(daemon.balance, balance)

    const started = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env })
    assert.equal(started.code, 0, started.stderr)
    const workers = (await home.ls()).map((r) => /** @type {number} */ (r.pid))
    assert.deepEqual([...await answeringPids(port, 2)].sort(), [...workers].sort())

    const inode = listeningInode(port)
    assert.ok(inode, `something listens on ${port}`)
    assert.equal(holdsSocket(daemon.pid, inode), true, 'the daemon opened the socket')
    for (const pid of workers) assert.equal(holdsSocket(pid, inode), balance === 'os', `worker ${pid} ${balance === 'os' ? 'accepts itself' : 'gets connections handed'}`)
  })
}

test('--balance that differs from the running daemon\'s is refused with the fix; a bad value names the choices', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const env = { PORT: String(port) }
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env })).code, 0)

  const mismatch = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'other', '--balance', 'os'], { env })
  assert.equal(mismatch.code, 1)
  assert.match(mismatch.stderr, /^sup: the daemon for .* balances connections with "rr", fixed when it started; for "os" run "sup kill", then start again with --balance os\n$/)
  assert.deepEqual((await home.ls()).map((r) => `${r.name}:${r.status}`), ['web:online', 'web:online'])

  const same = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'forked', '--balance', 'rr'], { env: { PORT: String(await freePort()) } })
  assert.equal(same.code, 0, same.stderr)

  const bad = await home.sup(['start', join(APPS, 'http-server.js'), '--balance', 'random'], { env })
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^sup: invalid --balance "random" \(use "rr": .*, or "os": .*\)\n$/)

  const badEnv = await home.sup(['ping'], { env: { SUP_HOME: join(home.home, 'other'), SUP_BALANCE: 'nope' } })
  assert.equal(badEnv.code, 1)
  assert.match(badEnv.stderr, /^sup: invalid SUP_BALANCE "nope"/)
})
