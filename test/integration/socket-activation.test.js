// @ts-check
// A socket-activated daemon (docs/deploy.md#socket-activation): systemd-socket-activate holds
// the app's port as systemd does, and starts `sup resurrect` on the first connection; the
// daemon adopts that socket instead of binding it, so the connections made before sup even
// ran are answered once the app is ready, none refused.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, SUP_BIN, freePort, useSupHome } from '../helpers/sup.js'

/** systemd's own tool (apt package `systemd`; `npm test` installs it when missing: test/system-deps.js). */
const ACTIVATE = 'systemd-socket-activate'

/**
 * One GET on a fresh connection, given long enough for a daemon to start and an app to be ready.
 * @param {number} port
 * @returns {Promise<{ status: number, body: string } | { error: string }>}
 */
function slowGet (port) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout: 30_000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('timeout', () => req.destroy(new Error('timed out')))
    req.on('error', (err) => resolve({ error: /** @type {any} */ (err).code ?? err.message }))
    req.end()
  })
}

/**
 * Start `argv` under systemd-socket-activate on `address`; resolves once it listens. Killed at
 * the end of the test if it is still there.
 * @param {import('node:test').TestContext} t
 * @param {string[]} options systemd-socket-activate's own (-l, --fdname, -E)
 * @param {string[]} argv
 */
async function activate (t, options, argv) {
  const child = spawn(ACTIVATE, [...options, ...argv], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (d) => { output += d })
  child.stderr.on('data', (d) => { output += d })
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve(code)))
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const signal = AbortSignal.timeout(10_000)
  await new Promise((resolve, reject) => {
    const check = () => { if (/Listening on/.test(output)) resolve(undefined) }
    child.stderr.on('data', check)
    child.on('error', (err) => reject(new Error(`${ACTIVATE} could not start (${err.message}): apt-get install systemd`)))
    child.on('exit', (code) => reject(new Error(`${ACTIVATE} exited with ${code}: ${output}`)))
    signal.addEventListener('abort', () => reject(new Error(`${ACTIVATE} did not listen within 10 s: ${output}`)), { once: true })
  })
  return { exited, output: () => output }
}

/**
 * Save an app with `listen` and stop its daemon, so the next daemon restores it from dump.json.
 * @param {import('node:test').TestContext} t
 * @param {ReturnType<typeof useSupHome>} home
 * @param {Record<string, unknown>} app
 */
async function saveAndKill (t, home, app) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-activation-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'apps.json')
  writeFileSync(file, JSON.stringify({ apps: [app] }))
  for (const args of [['start', file], ['save'], ['kill']]) {
    const result = await home.sup(args)
    assert.equal(result.code, 0, `sup ${args[0]}: ${result.stderr}`)
  }
}

test('socket activation: connections made before the daemon runs are answered by the app once it is ready, none refused', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const address = `127.0.0.1:${port}`
  await saveAndKill(t, home, { name: 'web', script: join(APPS, 'http-server.js'), exec_mode: 'fork', listen: [address], env: { PORT: String(port) } })

  // A name that matches nothing: the socket is recognised by its address.
  const activator = await activate(t, ['-l', address, '--fdname=http', '-E', `SUP_HOME=${home.home}`, '-E', 'NO_COLOR=1'], [process.execPath, SUP_BIN, 'resurrect'])
  // 20 clients connect at once: the kernel completes their handshakes on systemd's socket
  // while nothing of sup runs yet; the first one makes systemd-socket-activate start it.
  const answers = await Promise.all(Array.from({ length: 20 }, () => slowGet(port)))
  const failed = answers.filter((a) => !('status' in a) || a.status !== 200)
  assert.deepEqual(failed, [], `${failed.length} of 20 requests failed; ${activator.output()}`)
  assert.equal(await activator.exited, 0, `sup resurrect: ${activator.output()}`)

  const [row] = await home.ls()
  assert.equal(row.status, 'online')
  const pids = new Set(answers.map((a) => 'body' in a && JSON.parse(a.body).pid))
  assert.deepEqual([...pids], [row.pid], 'the app answered every one')
  const log = readFileSync(home.paths.daemonLog, 'utf8')
  assert.match(log, /"socket activation: sockets from systemd"/)
  assert.match(log, new RegExp(`"address":"${address}"`))

  // The socket is systemd's: a reload rolls onto it, and deleting the app leaves it open.
  const reload = await home.sup(['reload', 'web'])
  assert.equal(reload.code, 0, reload.stderr)
  const after = await slowGet(port)
  assert.ok('status' in after && after.status === 200, JSON.stringify(after))
  assert.equal((await home.sup(['delete', 'web'])).code, 0)
  // Nothing accepts now, but the kernel still completes connections on the socket, which the
  // daemon keeps for a later app (systemd keeps its own copy too); a closed one would refuse.
  const queued = await new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => { socket.destroy(); resolve('connected') })
    socket.once('error', (/** @type {any} */ err) => resolve(err.code))
  })
  assert.equal(queued, 'connected')
})
