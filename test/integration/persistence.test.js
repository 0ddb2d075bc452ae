// @ts-check
// state.json, kept current and read back after a daemon crash; dump.json, written by `sup save`
// and read by `sup resurrect`.
import assert from 'node:assert/strict'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readDaemonPid } from '../../client/daemon.js'
import { APPS, freePort, httpGet, isAlive, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { killEverythingOf, pidsRunning, waitForProcessCount } from '../helpers/procs.js'
import { waitFor } from '../helpers/wait.js'
import { waitForHttp } from '../helpers/under-load.js'

/**
 * A SUP_HOME whose leftovers are killed even when the test kills its daemon.
 * @param {import('node:test').TestContext} t
 */
function useHome (t) {
  const home = useSupHome(t)
  t.after(() => killEverythingOf(home.home))
  return home
}

/** @param {ReturnType<typeof useSupHome>} home */
const readState = (home) => JSON.parse(readFileSync(home.paths.state, 'utf8'))

/**
 * An ecosystem file whose app gets its port from its own env (which the dump keeps).
 * @param {ReturnType<typeof useSupHome>} home
 * @param {number} port
 */
function webConfig (home, port) {
  const file = join(home.home, 'web.config.json')
  writeFileSync(file, JSON.stringify({ apps: [{ name: 'web', script: join(APPS, 'http-server.js'), instances: 2, env: { PORT: String(port) } }] }))
  return file
}

/**
 * kill -9 the daemon and wait until it is gone.
 * @param {ReturnType<typeof useSupHome>} home
 */
async function crashDaemon (home) {
  const pid = /** @type {number} */ (readDaemonPid(home.paths))
  process.kill(pid, 'SIGKILL')
  await waitForExit([pid])
  return pid
}

test('the state file follows start and delete, is 0600, and holds no shell-only variable', async (t) => {
  const home = useHome(t)
  const env = { SECRET_SHELL_ONLY: 'hunter2-shell-secret' }
  const start = await home.sup(['start', join(APPS, 'spawns-child.js'), '--min-uptime', '100'], { env })
  assert.equal(start.code, 0, start.stderr)
  const [row] = await home.ls()
  // start answers once its change is on disk.
  const dump = readState(home)
  assert.equal(statSync(home.paths.state).mode & 0o777, 0o600)
  assert.doesNotMatch(readFileSync(home.paths.state, 'utf8'), /SECRET_SHELL_ONLY|hunter2/)
  assert.equal(dump.daemon.state, 'running')
  assert.equal(dump.daemon.pid, readDaemonPid(home.paths))
  assert.deepEqual(dump.apps.map((/** @type {any} */ a) => a.config.name), ['spawns-child'])
  assert.deepEqual(dump.apps[0].config.env, {})
  const [worker] = dump.apps[0].workers
  assert.equal(worker.pid, row.pid)
  assert.equal(worker.start_time, readFileSync(`/proc/${row.pid}/stat`, 'latin1').split(') ')[1].split(' ')[19], 'the start time from /proc')
  assert.equal(worker.run, true)

  assert.equal((await home.sup(['stop', 'spawns-child'])).code, 0)
  assert.equal(readState(home).apps[0].workers[0].run, false, 'a stopped worker is saved as stopped')
  assert.equal((await home.sup(['delete', 'spawns-child'])).code, 0)
  assert.deepEqual(readState(home).apps, [])
  assert.equal(JSON.parse(readFileSync(`${home.paths.state}.bak`, 'utf8')).apps.length, 1, 'the previous state is the .bak')
  assert.equal(existsSync(home.paths.dump), false, 'only `sup save` writes dump.json')
})

test('save and resurrect: a clean kill starts the next daemon empty, resurrect brings the apps back once', async (t) => {
  const home = useHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', webConfig(home, port)])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])).code, 0)
  const save = await home.sup(['save'])
  assert.equal(save.code, 0, save.stderr)
  assert.match(save.stdout, /saved 2 app\(s\), 3 worker\(s\) to .*dump\.json: web, worker/)

  const before = await home.ls()
  assert.equal((await home.sup(['kill'])).code, 0)
  await waitForExit(before.map((r) => /** @type {number} */ (r.pid)))
  assert.equal(readState(home).daemon.state, 'stopped')

  const ls = await home.sup(['ls'])
  assert.match(ls.stdout, /no apps/)
  assert.match(ls.stdout, /note: saved but not running: web, worker \(sup resurrect starts them\)/)
  const empty = await home.sup(['save'])
  assert.equal(empty.code, 1, 'an empty list does not replace saved apps without --force')
  assert.match(empty.stderr, /no apps to save, and .*dump\.json holds 2 app\(s\).*--force/)

  // Two at once: each app is started by exactly one of them.
  const [a, b] = await Promise.all([home.sup(['resurrect']), home.sup(['resurrect'])])
  assert.equal(a.code, 0, a.stderr)
  assert.equal(b.code, 0, b.stderr)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'resurrected apps online' })
  assert.deepEqual(rows.map((r) => `${r.name}/${r.mode}/${r.restored}`).sort(), ['web/cluster/resurrect', 'web/cluster/resurrect', 'worker/fork/resurrect'])
  await waitForProcessCount(home.home, 'http-server.js', 2)
  await waitForProcessCount(home.home, 'worker.py', 1)
  // "online" can come from min_uptime before a slow worker listens: wait for the port.
  await waitForHttp(port)
  assert.equal((await httpGet(port)).status, 200, 'the app got its PORT back from its saved env')

  const again = await home.sup(['resurrect'])
  assert.equal(again.code, 0)
  assert.match(again.stdout, /nothing to resurrect: every app in .* is already there \(web, worker\)/)
  assert.equal((await home.ls()).length, 3)
  assert.doesNotMatch((await home.sup(['ls'])).stdout, /note:/)

  // PM2's habit: the saved list outlives `delete all`, and resurrect brings it back.
  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  assert.deepEqual(await home.ls(), [])
  assert.deepEqual(readState(home).apps, [], 'the state follows the delete')
  const back = await home.sup(['resurrect'])
  assert.equal(back.code, 0, back.stderr)
  const resurrected = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'the saved list back after delete all' })
  assert.deepEqual(resurrected.map((r) => r.name).sort(), ['web', 'web', 'worker'])
})

test('kill -9 of the daemon: the next CLI call restores the apps, each once, and leaves no orphan', async (t) => {
  const home = useHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', webConfig(home, port)])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'spawns-child.js'), '--min-uptime', '100'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])).code, 0)
  // Ignores SIGINT and SIGTERM: it outlives the daemon, and the next daemon must stop it.
  assert.equal((await home.sup(['start', join(APPS, 'stubborn.js'), '--wait-ready', '--kill-timeout', '300'])).code, 0)
  await waitForRows(home, (rs) => rs.length === 5 && rs.every((r) => r.status === 'online'), { what: 'all online' })
  await waitFor(() => pidsRunning(home.home, 'sleep').length === 1, { what: 'the grandchild of spawns-child' })
  const oldPids = [
    ...await waitForProcessCount(home.home, 'http-server.js', 2),
    ...await waitForProcessCount(home.home, 'spawns-child.js', 1),
    ...await waitForProcessCount(home.home, 'worker.py', 1),
    ...await waitForProcessCount(home.home, 'stubborn.js', 1),
    ...pidsRunning(home.home, 'sleep')
  ]
  assert.equal(oldPids.length, 6, 'two web workers, spawns-child and its sleep, worker.py, stubborn')

  const deadPid = await crashDaemon(home)
  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  assert.match(ls.stdout, new RegExp(`note: the previous daemon \\(pid ${deadPid}\\) died; restored web, spawns-child, worker, stubborn from .*state\\.json`))
  assert.match(ls.stdout, /first stopped 1 of its workers that still ran; killed \d process/, 'stubborn outlived the daemon and needed SIGKILL')
  // Replacements started only after the old ones were gone, so the old pids are dead by now.
  assert.deepEqual(oldPids.filter(isAlive), [])

  const rows = await waitForRows(home, (rs) => rs.length === 5 && rs.every((r) => r.status === 'online'), { what: 'restored apps online' })
  for (const row of rows) {
    assert.equal(row.restored, 'crashed')
    assert.equal(row.restarts, 0)
    assert.ok(!oldPids.includes(/** @type {number} */ (row.pid)))
  }
  await waitForProcessCount(home.home, 'http-server.js', 2)
  await waitForProcessCount(home.home, 'spawns-child.js', 1)
  await waitForProcessCount(home.home, 'worker.py', 1)
  await waitForProcessCount(home.home, 'stubborn.js', 1)
  await waitForHttp(port)
  const dump = readState(home)
  assert.equal(dump.daemon.pid, readDaemonPid(home.paths), 'the new daemon owns the dump')
  const log = readFileSync(home.paths.daemonLog, 'utf8')
  assert.match(log, /the previous daemon died; restored its apps/)
})

test('cluster and fork workers do not outlive a dead daemon on their own', async (t) => {
  const home = useHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['start', webConfig(home, port)])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])).code, 0)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'online' })
  await crashDaemon(home)
  // No daemon runs now: cluster workers exit with their IPC channel, fork workers get SIGTERM
  // from the kernel (setpriv --pdeathsig).
  await waitForExit(rows.map((r) => /** @type {number} */ (r.pid)))
  assert.equal(existsSync(home.paths.pidFile), true, 'nothing has started a new daemon')
})

test('a corrupt state file falls back to the .bak with a message; both corrupt start empty, never crash', async (t) => {
  const home = useHome(t)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--name', 'first', '--min-uptime', '100'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--name', 'second', '--min-uptime', '100'])).code, 0)
  await crashDaemon(home)
  const good = readFileSync(home.paths.state, 'utf8')
  // A .bak that differs from dump.json (it holds "first" only), to see which one was used.
  const bak = JSON.parse(good)
  bak.apps = bak.apps.filter((/** @type {any} */ a) => a.config.name === 'first')
  writeFileSync(`${home.paths.state}.bak`, JSON.stringify(bak))
  writeFileSync(home.paths.state, good.slice(0, good.length / 2))

  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  assert.match(ls.stdout, /warning: the dump .*state\.json cannot be read: not JSON .*truncated.*; moved it to .*state\.json\.corrupt/)
  assert.match(ls.stdout, /warning: using .*state\.json\.bak .* instead/)
  const rows = await waitForRows(home, (rs) => rs.length === 1 && rs[0].status === 'online', { what: 'restored from the .bak' })
  assert.equal(rows[0].name, 'first')
  assert.equal(existsSync(`${home.paths.state}.corrupt`), true)
  // The restore writes state.json again right after; wait for the write, not for luck.
  const names = () => { try { return readState(home).apps.map((/** @type {any} */ a) => a.config.name) } catch { return null } }
  await waitFor(() => names()?.length === 1, { what: 'state.json written again' })
  assert.deepEqual(names(), ['first'], 'a good state.json is written again')

  await crashDaemon(home)
  writeFileSync(home.paths.state, '{"sup_dump": 1, "apps": ')
  writeFileSync(`${home.paths.state}.bak`, '')
  const empty = await home.sup(['ls'])
  assert.equal(empty.code, 0, empty.stderr)
  assert.match(empty.stdout, /no apps/)
  assert.match(empty.stdout, /warning: the dump .*state\.json\.bak cannot be read: the file is empty: no saved apps/)
  assert.equal((await home.sup(['ping'])).code, 0, 'the daemon runs')
})
