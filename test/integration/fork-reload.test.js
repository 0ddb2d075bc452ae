// @ts-check
// Fork-mode zero-downtime reload on sockets the daemon holds (`listen`, docs/reload.md#fork-mode):
// a plain node:http app and a Python server that takes its socket the systemd way reload
// under load with 0 failed requests; the sockets outlive every generation.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, httpGet, useSupHome } from '../helpers/sup.js'
import { reloadUnderLoad, waitForHttp } from '../helpers/under-load.js'

/** The real interpreter, not a version manager's shim script (pyenv's forks helpers that inherit the socket). */
const PYTHON = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim()

/**
 * Write a config file for one app and start it.
 * @param {import('node:test').TestContext} t
 * @param {ReturnType<typeof useSupHome>} home
 * @param {Record<string, unknown>} app
 */
async function startFromFile (t, home, app) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-fork-reload-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'apps.json')
  writeFileSync(file, JSON.stringify({ apps: [app] }))
  const result = await home.sup(['start', file])
  assert.equal(result.code, 0, result.stderr)
  return file
}

test('a plain node:http app in fork mode with listen reloads 3 times under load with 0 failed requests', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  // The app calls listen(PORT, '127.0.0.1') itself: the agent hands it the daemon's socket.
  await startFromFile(t, home, { name: 'web', script: join(APPS, 'http-server.js'), exec_mode: 'fork', listen: [`127.0.0.1:${port}`], env: { PORT: String(port) } })
  await waitForHttp(port)
  await reloadUnderLoad(home, 'web', port, 3, { everyGeneration: true })
})

test('a Python server taking LISTEN_FDS (LISTEN_PID checked) reloads 3 times under load with 0 failed requests', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startFromFile(t, home, { name: 'py', script: join(APPS, 'fd-server.py'), interpreter: PYTHON, listen: [`127.0.0.1:${port}`], min_uptime: 300 })
  await waitForHttp(port)
  const { body } = await httpGet(port)
  assert.deepEqual({ fds: JSON.parse(body).fds, names: JSON.parse(body).names }, { fds: 1, names: [`127.0.0.1_${port}`] })
  await reloadUnderLoad(home, 'py', port, 3, { everyGeneration: true })
})

test('the daemon holds the socket: a restart queues connections instead of refusing them, delete releases it', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startFromFile(t, home, { name: 'web', script: join(APPS, 'http-server.js'), listen: [`127.0.0.1:${port}`], env: { PORT: String(port) } })
  await waitForHttp(port)
  const stopped = await home.sup(['stop', 'web'])
  assert.equal(stopped.code, 0, stopped.stderr)
  // No worker runs, yet the connection is accepted by the kernel and answered once one does.
  const pending = httpGet(port)
  const started = await home.sup(['restart', 'web'])
  assert.equal(started.code, 0, started.stderr)
  assert.equal((await pending).status, 200)
  const deleted = await home.sup(['delete', 'web'])
  assert.equal(deleted.code, 0, deleted.stderr)
  await assert.rejects(httpGet(port), /ECONNREFUSED/)
})

test('listen on an address in use refuses the app with SUP_ERR_LISTEN_FAILED', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  await startFromFile(t, home, { name: 'a', script: join(APPS, 'http-server.js'), listen: [`127.0.0.1:${port}`], env: { PORT: String(port) } })
  const dir = mkdtempSync(join(tmpdir(), 'sup-fork-reload-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'b.json'), JSON.stringify({ apps: [{ name: 'b', script: join(APPS, 'http-server.js'), listen: [`127.0.0.1:${port}`] }] }))
  const result = await home.sup(['start', join(dir, 'b.json')])
  assert.equal(result.code, 1)
  assert.match(result.stderr, /cannot listen on 127\.0\.0\.1:\d+ for app "b": the address is in use/)
  assert.deepEqual((await home.ls()).map((r) => r.name), ['a'])
})
