// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import WebSocket from 'ws'
import { socketUrl } from '../../ipc/paths.js'
import { APPS, SUP_BIN, freePort, isAlive, useSupHome, waitForExit, waitForLogLine, waitForRows } from '../helpers/sup.js'

test('logs: past lines from every worker, --err/--out, --json, then new lines as they come', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })).code, 0)
  const past = await home.sup(['logs', 'web', '--lines', '20', '--nostream'])
  assert.equal(past.code, 0, past.stderr)
  assert.match(past.stdout, /web\[0\] out \| listening on/)
  assert.match(past.stdout, /web\[1\] out \| listening on/)
  assert.equal((await home.sup(['logs', 'web', '--err', '--nostream'])).stdout, '')
  const json = (await home.sup(['logs', 'web', '--json', '--nostream', '--lines', '1'])).stdout.trim().split('\n').map((l) => JSON.parse(l))
  assert.equal(json.length, 1)
  assert.equal(json[0].app, 'web')
  assert.equal(json[0].stream, 'out')

  // Per-instance files (design §7).
  assert.match(readFileSync(join(home.paths.logs, 'web-out-0.log'), 'utf8'), /listening on/)
  assert.match(readFileSync(join(home.paths.logs, 'web-out-1.log'), 'utf8'), /listening on/)

  // Follow: `sup logs` subscribes before it reads the ring, so once it has printed the
  // past line, a line from a restarted worker must arrive live.
  const follower = spawn(process.execPath, [SUP_BIN, 'logs', 'web', '--lines', '1'], { env: home.env })
  t.after(() => follower.kill('SIGKILL'))
  let output = ''
  follower.stdout.on('data', (chunk) => { output += chunk })
  /** @param {number} count */
  const linesSeen = (count) => new Promise((resolve) => {
    const check = () => {
      if ((output.match(/listening on/g) ?? []).length < count) return
      follower.stdout.off('data', check)
      resolve(undefined)
    }
    follower.stdout.on('data', check)
    check()
  })
  await linesSeen(1)
  assert.equal((await home.sup(['restart', '0'])).code, 0)
  await linesSeen(2)
  follower.kill('SIGINT')

  // flush empties files and the ring.
  const flush = await home.sup(['flush', 'web'])
  assert.equal(flush.code, 0)
  assert.equal(readFileSync(join(home.paths.logs, 'web-out-0.log'), 'utf8'), '')
  assert.equal((await home.sup(['logs', 'web', '--nostream'])).stdout, '')
})

test('describe, signal, reset, ping', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'one'], { env: { PORT: String(port) } })).code, 0)
  const [row] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'online' })

  const describe = await home.sup(['describe', 'one', '--json'])
  const info = JSON.parse(describe.stdout)
  assert.equal(info.config.script, join(APPS, 'http-server.js'))
  assert.equal(info.config.exec_mode, 'fork')
  assert.equal(info.workers[0].pid, row.pid)
  assert.ok(info.logs.includes(join(home.paths.logs, 'one-out.log')))
  assert.equal(info.config.env.PORT, undefined, 'the caller\'s shell env is not part of the app config')
  assert.match((await home.sup(['describe', String(row.id)])).stdout, /app one/)

  // SIGKILL through `signal` is a crash like any other: replaced, counted, then reset to 0.
  const sig = await home.sup(['signal', 'kill', 'one'])
  assert.equal(sig.code, 0, sig.stderr)
  assert.match(sig.stdout, new RegExp(`sent kill to one\\[0\\] \\(pid ${row.pid}\\)`))
  const [after] = await waitForRows(home, (rs) => rs[0]?.status === 'online' && rs[0].pid !== row.pid, { what: 'replaced' })
  assert.equal(after.restarts, 1)
  assert.equal((await home.sup(['reset', 'one'])).code, 0)
  assert.equal((await home.ls())[0].restarts, 0)

  const ping = JSON.parse((await home.sup(['ping', '--json'])).stdout)
  assert.equal(ping.pong, true)
  assert.equal(ping.apps, 1)
  assert.equal(ping.pid, Number(readFileSync(home.paths.pidFile, 'utf8')))
})

test('kill stops every app and the daemon; nothing is left running', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2'], { env: { PORT: String(port) } })).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'spawns-child.js'), '-i', '1', '--min-uptime', '100'])).code, 0)
  await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'all online' })
  // "online" comes after min_uptime, which a loaded machine can pass before node has run the
  // script: wait for the line itself.
  const childPid = await waitForLogLine(home, 'spawns-child', /child (\d+)/).then((m) => Number(m[1]))
  const daemonPid = Number(readFileSync(home.paths.pidFile, 'utf8'))
  const pids = [daemonPid, childPid, ...(await home.ls()).map((r) => /** @type {number} */ (r.pid))]
  assert.ok(pids.every(isAlive))

  const kill = await home.sup(['kill'])
  assert.equal(kill.code, 0, kill.stderr)
  assert.match(kill.stdout, /daemon stopped/)
  // Generous: a loaded 2-core machine can take a while to schedule the exits.
  await waitForExit(pids, 10_000)
  assert.throws(() => statSync(home.paths.socket), /ENOENT/)
  assert.throws(() => statSync(home.paths.pidFile), /ENOENT/)
})

test('two CLI calls at once share one daemon', async (t) => {
  const home = useSupHome(t)
  const [a, b] = await Promise.all([home.sup(['ping', '--json']), home.sup(['ping', '--json'])])
  assert.equal(a.code, 0, a.stderr)
  assert.equal(b.code, 0, b.stderr)
  assert.equal(JSON.parse(a.stdout).pid, JSON.parse(b.stdout).pid)

  const portA = await freePort()
  const portB = await freePort()
  const [startA, startB] = await Promise.all([
    home.sup(['start', join(APPS, 'http-server.js'), '--name', 'a', '-i', '2'], { env: { PORT: String(portA) } }),
    home.sup(['start', join(APPS, 'http-server.js'), '--name', 'b', '-i', '2'], { env: { PORT: String(portB) } })
  ])
  assert.equal(startA.code, 0, startA.stderr)
  assert.equal(startB.code, 0, startB.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.id).sort(), [0, 1, 2, 3], 'ids stay unique')
})

test('the socket and SUP_HOME are private; a second daemon refuses to start', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  assert.equal(statSync(home.paths.home).mode & 0o777, 0o700)
  assert.equal(statSync(home.paths.socket).mode & 0o777, 0o600)
  const second = spawn(process.execPath, [join(APPS, '..', '..', '..', 'daemon', 'main.js')], { env: home.env, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => second.kill('SIGKILL'))
  let out = ''
  second.stdout.on('data', (c) => { out += c })
  const [code] = await new Promise((resolve) => second.once('exit', (...args) => resolve(args)))
  assert.equal(code, 0)
  assert.match(out, /SUP_ERR_DAEMON_ALREADY_RUNNING/)
  assert.equal((await home.sup(['ping'])).code, 0, 'the first daemon still answers')
})

test('bad frames get coded errors and never crash the daemon', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  const ws = new WebSocket(socketUrl(home.paths.socket))
  t.after(() => ws.terminate())
  await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
  /** @param {string} frame */
  const exchange = (frame) => new Promise((resolve) => {
    ws.once('message', (data) => resolve(JSON.parse(data.toString())))
    ws.send(frame)
  })
  /** @type {Array<[string, string]>} */
  const cases = [
    ['not json', 'SUP_ERR_IPC_BAD_MESSAGE'],
    ['{"v":1,"method":"app.list"}', 'SUP_ERR_IPC_BAD_MESSAGE'],
    ['{"v":1,"id":1,"method":"app.nuke"}', 'SUP_ERR_IPC_UNKNOWN_METHOD'],
    ['{"v":1,"id":2,"method":"app.stop","params":{"targets":"all"}}', 'SUP_ERR_IPC_INVALID_PARAMS'],
    ['{"v":1,"id":3,"method":"app.start","params":{"apps":[{"name":"x"}]}}', 'SUP_ERR_IPC_INVALID_PARAMS'],
    ['{"v":1,"id":4,"method":"hello","params":{"protocol":99}}', 'SUP_ERR_IPC_VERSION_MISMATCH'],
    ['{"v":1,"id":5,"method":"constructor"}', 'SUP_ERR_IPC_UNKNOWN_METHOD']
  ]
  for (const [frame, code] of cases) {
    const reply = /** @type {any} */ (await exchange(frame))
    assert.equal(reply.ok, false, frame)
    assert.equal(reply.error.code, code, frame)
    assert.equal(typeof reply.error.message, 'string')
  }
  const ok = /** @type {any} */ (await exchange('{"v":1,"id":9,"method":"app.list"}'))
  assert.deepEqual(ok, { v: 1, id: 9, ok: true, result: [] })
})

test('SIGTERM to the daemon stops every app with the ladder, then the daemon', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'ignore-sigint.js'), '--kill-timeout', '300', '--min-uptime', '100'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2'], { env: { PORT: String(port) } })).code, 0)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'all online' })
  const daemonPid = Number(readFileSync(home.paths.pidFile, 'utf8'))
  process.kill(daemonPid, 'SIGTERM')
  await waitForExit([daemonPid, ...rows.map((r) => /** @type {number} */ (r.pid))], 5000)
  const log = readFileSync(home.paths.daemonLog, 'utf8')
  assert.match(log, /"reason":"SIGTERM","msg":"daemon stopping"/)
  assert.match(log, /sending SIGKILL/, 'the app that ignores SIGINT got the end of the ladder')
})
