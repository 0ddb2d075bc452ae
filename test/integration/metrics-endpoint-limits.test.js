// @ts-check
// Issue 19 item 6: the metrics endpoint is open to every local user (and to web pages, by DNS
// rebinding). Idle connections from another uid must not take the daemon's file descriptors
// (the owner's sup ls and a crashing app's restarts go on), slow headers are cut short, and a
// Host that is not a loopback name or the address bound gets 421.
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { request } from 'node:http'
import { connect } from 'node:net'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor, within } from '../helpers/wait.js'

const HOLDER = join(import.meta.dirname, '..', 'fixtures', 'hold-connections.cjs')
const asRoot = process.getuid?.() === 0

/**
 * GET /metrics with a Host header of our choosing.
 * @param {number} port
 * @param {string} host
 * @returns {Promise<number>} the status
 */
function getWithHost (port, host) {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/metrics', headers: { host }, agent: false }, (res) => {
      res.resume()
      res.on('end', () => resolve(/** @type {number} */ (res.statusCode)))
    })
    req.on('error', reject)
    req.setTimeout(10_000, () => req.destroy(new Error('no answer')))
    req.end()
  })
}

test('idle connections from another uid do not starve the daemon; slow headers are cut; a foreign Host gets 421', { skip: !asRoot && 'needs root (setpriv, prlimit)' }, async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', join(APPS, 'exits-after.js'), '--name', 'crashy', '--restart-delay', '100', '--max-restarts', '100000', '--min-uptime', '50'], { env: { EXIT_AFTER: '300' } })
  assert.ok(start.code === 0 || start.code === 1, start.stderr)
  const port = await freePort()
  assert.equal((await home.sup(['metrics', '--port', String(port)])).code, 0)
  const daemonPid = JSON.parse((await home.sup(['ping', '--json'])).stdout).pid
  // The set-up: the daemon's fd limit lowered to 200, 250 idle connections from nobody.
  execFileSync('prlimit', ['--pid', String(daemonPid), '--nofile=200:200'])

  assert.equal(await getWithHost(port, 'evil.example'), 421)
  assert.equal(await getWithHost(port, `evil.example:${port}`), 421)
  assert.equal(await getWithHost(port, `localhost:${port}`), 200)
  assert.equal(await getWithHost(port, `127.0.0.1:${port}`), 200)

  const holder = spawn('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, HOLDER], { env: { PORT: String(port), COUNT: '250' }, stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => holder.kill('SIGKILL'))
  let out = ''
  holder.stdout.on('data', (d) => { out += d })
  await waitFor(() => /held \d+/.test(out), { what: 'the holder to hold its connections', timeout: 20_000, show: () => out })
  assert.match(out, /held \d+/)

  const before = (await home.ls()).find((r) => r.name === 'crashy')?.restarts ?? 0
  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  assert.match(ls.stdout, /crashy/)
  await waitForRows(home, (rows) => rows.some((r) => r.name === 'crashy' && r.restarts >= before + 3), { what: 'the crashing app restarting while the connections are held', timeout: 20_000 })
  assert.doesNotMatch(execFileSync('tail', ['-n', '200', home.paths.daemonLog], { encoding: 'utf8' }), /EMFILE/)

  // Headers that never end: the connection is closed within the headers timeout (5 s), not Node's 60 s.
  const began = Date.now()
  const socket = connect(port, '127.0.0.1', () => socket.write('GET /metrics HTTP/1.1\r\nHost: localhost\r\n'))
  t.after(() => socket.destroy())
  socket.on('error', () => {})
  // Its end may come as a reset (an 'error' first), which events.on would throw: wait for 'close' alone.
  await within(new Promise((resolve) => socket.once('close', resolve)), { what: 'the endpoint to close a connection whose headers never end', timeout: 20_000 })
  const closedAfter = Date.now() - began
  assert.ok(closedAfter < 12_000, `closed after ${closedAfter} ms`)
})
