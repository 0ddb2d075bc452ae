// @ts-check
// Faults of the daemon itself, at full size (`npm run test:faults`; not part of `npm test`).
// Each test prints what it measured (`# ...` lines) for docs/reliability.md.
//   FAULT_SAVE_KILLS   kill -9 of the daemon during `sup save`, how many times (default 30)
//   FAULT_CLIS         CLIs starting apps at once (default 20), FAULT_APPS_PER_CLI (default 10)
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readDaemonPid } from '../../client/daemon.js'
import { parseDump } from '../../daemon/dump/format.js'
import { describeLoad, startLoad } from '../helpers/load.js'
import { processesOfHome } from '../helpers/procs.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, SUP_BIN, freePort, httpGet, useSupHome } from '../helpers/sup.js'

const SAVE_KILLS = Number(process.env.FAULT_SAVE_KILLS ?? 30)
const CLIS = Number(process.env.FAULT_CLIS ?? 20)
const APPS_PER_CLI = Number(process.env.FAULT_APPS_PER_CLI ?? 10)

/** @param {string} file */
function readDumpFile (file) {
  return parseDump(readFileSync(file, 'utf8'), file).dump
}

test(`kill -9 of the daemon during sup save, ${SAVE_KILLS} times: the dump is the old one or the new one, never torn`, async (t) => {
  const home = useSupHome(t)
  const names = ['a', 'b', 'c', 'd', 'e']
  for (const name of names) {
    const started = await home.sup(['start', 'sleep', '--name', name, '--', '600'])
    assert.equal(started.code, 0, started.stderr)
  }
  assert.equal((await home.sup(['save'])).code, 0)
  let killedMidSave = 0
  for (let i = 0; i < SAVE_KILLS; i++) {
    const pid = readDaemonPid(home.paths)
    assert.ok(pid, `a daemon before round ${i}`)
    // The request goes over an open connection, so the kill lands inside the save: from at
    // once to a few ms after the daemon has it (the write itself takes about that long).
    const conn = await home.connect()
    const save = conn.request('dump.save', { force: true }).then(() => true, () => false)
    // Not a wait: the kill's offset into the save, spread over 0-5 ms across the rounds.
    await new Promise((resolve) => setTimeout(resolve, i % 6))
    process.kill(pid, 'SIGKILL')
    if (!(await save)) killedMidSave++
    await conn.close().catch(() => {})
    // The dump on disk parses, with every app, whichever version it is.
    const dump = readDumpFile(home.paths.dump)
    assert.deepEqual(dump.apps.map((a) => a.config.name).sort(), names, `round ${i}: dump.json`)
    // The next command starts a new daemon, which recovers the apps from state.json.
    const rows = await home.ls()
    assert.deepEqual([...new Set(rows.map((r) => r.name))].sort(), names, `round ${i}: recovered apps`)
  }
  t.diagnostic(`${SAVE_KILLS} kills during save (${killedMidSave} before the save answered): dump.json whole every time, every app recovered`)
  // The last word: delete everything and resurrect from the snapshot.
  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  assert.equal((await home.sup(['resurrect'])).code, 0)
  assert.deepEqual([...new Set((await home.ls()).map((r) => r.name))].sort(), names)
})

test('kill -9 of the daemon under HTTP load: how many requests fail and how soon service is back', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  // PORT in the app's own env, which state.json keeps: a variable of the shell that ran
  // `sup start` does not come back after a crash (docs/persistence.md).
  const config = join(home.home, 'web.config.json')
  writeFileSync(config, JSON.stringify({ apps: [{ name: 'web', script: join(APPS, 'http-server.js'), exec_mode: 'cluster', instances: 2, env: { PORT: String(port) } }] }))
  const started = await home.sup(['start', config])
  assert.equal(started.code, 0, started.stderr)
  await waitFor(() => httpGet(port).then(() => true, () => false), { what: 'the app to answer' })
  const load = startLoad({ port, concurrency: 10, duration: 60_000, maxRequests: 200_000, requestTimeout: 5000, mode: 'fresh' })
  t.after(() => load.stop())
  await waitFor(() => load.snapshot().ok >= 100, { what: '100 answers before the kill', show: () => describeLoad(load.snapshot()) })
  const before = load.snapshot()
  const pid = readDaemonPid(home.paths)
  assert.ok(pid)
  const killedAt = Date.now()
  process.kill(pid, 'SIGKILL')
  // Cluster workers end with their primary; the next CLI call starts a daemon that recovers them.
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.name), ['web', 'web'])
  let last = ''
  await waitFor(() => httpGet(port).then(() => true, (err) => { last = err.message; return false }), { what: 'service back', timeout: 30_000, show: () => last })
  const backAfter = Date.now() - killedAt
  const afterKill = load.snapshot()
  const result = await load.stop()
  t.diagnostic(`killed with ${before.ok} answered; service back ${backAfter} ms after the kill (one sup ls started the new daemon); ${describeLoad(result)}; failed after the kill ${afterKill.failed - before.failed}`)
  assert.ok(result.ok > before.ok, 'answers after recovery')
})

test(`${CLIS * APPS_PER_CLI} apps started at once from ${CLIS} CLIs: all there, ids unique, daemon answers, nothing leaks`, async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  const configs = []
  for (let c = 0; c < CLIS; c++) {
    const file = join(home.home, `cli-${c}.config.json`)
    const apps = []
    for (let a = 0; a < APPS_PER_CLI; a++) apps.push({ name: `c${c}-a${a}`, script: 'sleep', args: ['600'], exec_mode: 'fork' })
    writeFileSync(file, JSON.stringify({ apps }))
    configs.push(file)
  }
  const began = Date.now()
  const results = await Promise.all(configs.map((file) => new Promise((resolve) => {
    execFile(process.execPath, [SUP_BIN, 'start', file], { env: home.env, timeout: 120_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, stderr }))
  })))
  const took = Date.now() - began
  for (const r of /** @type {Array<{ code: number, stderr: string }>} */ (results)) assert.equal(r.code, 0, r.stderr)
  const pingStarted = Date.now()
  assert.equal((await home.sup(['ping'])).code, 0)
  const pingMs = Date.now() - pingStarted
  const rows = await home.ls()
  assert.equal(rows.length, CLIS * APPS_PER_CLI)
  assert.equal(new Set(rows.map((r) => r.name)).size, CLIS * APPS_PER_CLI, 'names unique')
  assert.equal(new Set(rows.map((r) => r.id)).size, CLIS * APPS_PER_CLI, 'ids unique')
  await waitFor(async () => (await home.ls()).every((r) => r.status === 'online'), { what: 'every app online', timeout: 60_000 })
  t.diagnostic(`${rows.length} apps from ${CLIS} CLIs at once: all answered in ${took} ms; ping after ${pingMs} ms (CLI start-up included)`)
  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  const daemonPid = readDaemonPid(home.paths)
  await waitFor(() => processesOfHome(home.home).filter((p) => p.pid !== daemonPid).length === 0, { what: 'no process left after delete all', timeout: 30_000 })
})
