// @ts-check
// Fault: SUP_HOME deleted under a running daemon (`rm -rf ~/.sup` while apps run). What must
// hold: the same daemon answers on the same path again within moments, with the same apps and
// pids; no second daemon is started; logs and the state file are written at their paths again.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readDaemonPid } from '../../client/daemon.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome } from '../helpers/sup.js'

test('SUP_HOME deleted while running: the daemon puts it back and keeps its apps', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'chatty.js'), '-i', '2', '--name', 'talk'], { env: { LINES: '1', SIZE: '10' } })
  assert.equal(started.code, 0, started.stderr)
  const before = await home.ls()
  const daemonPid = readDaemonPid(home.paths)
  assert.ok(daemonPid)
  const outLog = join(home.paths.logs, 'talk-out-0.log')
  await waitFor(() => existsSync(outLog) && statSync(outLog).size > 0, { what: 'the first log lines' })

  rmSync(home.paths.home, { recursive: true, force: true })

  // Event: the socket file is back at its path (the daemon's home guard). Without the guard
  // nothing recreates it, and `sup ls` would start a second, empty daemon.
  await waitFor(() => existsSync(home.paths.socket), { what: 'the socket to be back', timeout: 10_000 })
  const after = await home.ls()
  assert.deepEqual(after.map((w) => [w.name, w.id, w.pid, w.status]), before.map((w) => [w.name, w.id, w.pid, w.status]))
  assert.equal(readDaemonPid(home.paths), daemonPid, 'daemon.pid names the same daemon')
  const ping = await home.sup(['ping', '--json'])
  assert.equal(ping.code, 0, ping.stderr)
  assert.equal(JSON.parse(ping.stdout).pid, daemonPid, 'the CLI reached the old daemon, not a new one')
  assert.equal(statSync(home.paths.home).mode & 0o777, 0o700)
  assert.equal(statSync(home.paths.socket).mode & 0o777, 0o600)

  // The apps' output reaches files at their paths again, and the state file is rewritten.
  await waitFor(() => existsSync(outLog) && /line \d+/.test(readFileSync(outLog, 'utf8')), { what: 'new log lines at the old path' })
  await waitFor(() => existsSync(home.paths.state) && readFileSync(home.paths.state, 'utf8').includes('"talk"'), { what: 'state.json rewritten' })
  await waitFor(() => existsSync(home.paths.daemonLog) && readFileSync(home.paths.daemonLog, 'utf8').includes('SUP_HOME restored'), { what: 'daemon.log reopened' })
})
