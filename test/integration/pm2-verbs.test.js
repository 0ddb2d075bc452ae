// @ts-check
// The verbs and flags PM2 users type (docs/cli.md): pid, id, env, prettylist, ls --sort / -m,
// -s, dump, reloadLogs, update, set, PM2_HOME.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { tmpdir } from 'node:os'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

const SCRIPT = join(APPS, 'signal-logger.js')

test('pid, id, env, prettylist, ls --sort and -m, -s, dump and set, against two running apps', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'web'])).code, 0)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'api', '-i', '2'], { env: { MARKER: 'from-the-shell' } })).code, 0)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'three workers online' })
  const api = rows.filter((r) => r.name === 'api')

  // pid: one line per worker that has a process; an unknown name prints nothing, as in PM2.
  const pids = await home.sup(['pid', 'api'])
  assert.equal(pids.code, 0, pids.stderr)
  assert.deepEqual(pids.stdout.trim().split('\n').map(Number), api.map((r) => r.pid))
  assert.equal((await home.sup(['pid'])).stdout.trim().split('\n').length, 3)
  assert.deepEqual(await home.sup(['pid', 'nope']), { code: 0, stdout: '', stderr: '' })

  // id: PM2's printed array.
  assert.equal((await home.sup(['id', 'api'])).stdout, `[ ${api.map((r) => r.id).join(', ')} ]\n`)
  assert.equal((await home.sup(['id', 'nope'])).stdout, '[]\n')

  // env: what the worker was started with, the caller's shell and the instance variable included.
  const env = await home.sup(['env', String(api[1].id)])
  assert.equal(env.code, 0, env.stderr)
  const lines = env.stdout.trim().split('\n')
  assert.ok(lines.includes('MARKER: from-the-shell'), env.stdout)
  assert.ok(lines.includes(`NODE_APP_INSTANCE: ${api[1].instance}`), env.stdout)
  assert.equal((await home.sup(['env', '99'])).code, 1)

  // prettylist: ls --json, indented.
  const pretty = await home.sup(['prettylist'])
  assert.match(pretty.stdout, /^\[\n {2}\{\n {4}"id": /)
  assert.deepEqual(JSON.parse(pretty.stdout).map((/** @type {any} */ r) => r.id), rows.map((r) => r.id))

  // ls --sort: PM2's field[:order]; an unknown field is a usage error.
  const sorted = await home.sup(['ls', '--sort', 'name:desc'])
  assert.ok(sorted.stdout.indexOf('web') < sorted.stdout.indexOf('api'), sorted.stdout)
  const byName = await home.sup(['ls', '--sort=name'])
  assert.ok(byName.stdout.indexOf('api') < byName.stdout.indexOf('web'), byName.stdout)
  const bogus = await home.sup(['ls', '--sort', 'colour'])
  assert.equal(bogus.code, 1)
  assert.match(bogus.stderr, /^sup: --sort takes <field>\[:asc\|desc\]/)

  // ls -m: a block per worker.
  const mini = await home.sup(['ls', '-m'])
  assert.equal(mini.stdout.match(/^\+--- /gm)?.length, 3)
  assert.match(mini.stdout, new RegExp(`^pid : ${api[0].pid}$`, 'm'))

  // -s before or after the verb: nothing on stdout, the exit code still says how it went.
  assert.deepEqual(await home.sup(['-s', 'stop', 'web']), { code: 0, stdout: '', stderr: '' })
  assert.deepEqual(await home.sup(['restart', 'web', '--silent']), { code: 0, stdout: '', stderr: '' })
  const silentFailure = await home.sup(['stop', 'nope', '-s'])
  assert.equal(silentFailure.code, 1)
  assert.equal(silentFailure.stdout, '')
  assert.equal((await home.sup(['restart', 'web'], { env: { PM2_SILENT: 'true' } })).stdout, '')

  // dump is save.
  const dump = await home.sup(['dump'])
  assert.equal(dump.code, 0, dump.stderr)
  assert.match(dump.stdout, /^saved 2 app\(s\), 3 worker\(s\) to /)

  // PM2's module settings: one line that says what to use instead, exit 1.
  const set = await home.sup(['set', 'pm2-logrotate:max_size', '10M'])
  assert.equal(set.code, 1)
  assert.equal(set.stderr, 'sup: "sup set pm2-logrotate:max_size" is not supported: sup rotates logs itself: use log_max_size in the app config, or SUP_LOG_MAX_SIZE for the daemon (docs/logs.md)\n')
  assert.equal((await home.sup(['multiset', 'pm2:sysmonit true'])).code, 1)
})

test('reloadLogs: after the log file is moved away, new lines go to a new file at its path', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'rot'])).code, 0)
  const described = JSON.parse((await home.sup(['describe', 'rot', '--json'])).stdout)
  const out = /** @type {string} */ (described.logs.find((/** @type {string} */ p) => p.endsWith('-out.log')))
  await waitFor(() => existsSync(out) && readFileSync(out, 'utf8').includes('ready'), { what: 'the app\'s first line in its log' })
  renameSync(out, `${out}.1`)

  const reopened = await home.sup(['reloadLogs'])
  assert.equal(reopened.code, 0, reopened.stderr)
  assert.match(reopened.stdout, /^reopened \d+ log file\(s\)\n$/)
  assert.ok(existsSync(out), 'the file is there again at once')
  assert.equal((await home.sup(['signal', 'SIGHUP', 'rot'])).code, 0)
  await waitFor(() => readFileSync(out, 'utf8').includes('got SIGHUP'), { what: 'the new line in the new file' })
  assert.doesNotMatch(readFileSync(`${out}.1`, 'utf8'), /got SIGHUP/)
})

test('update: save, a new daemon, the apps back with new pids', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'kept', '-i', '2'])).code, 0)
  const before = await home.ls()
  const oldDaemon = JSON.parse((await home.sup(['ping', '--json'])).stdout).pid

  const update = await home.sup(['update'])
  assert.equal(update.code, 0, update.stderr)
  assert.match(update.stdout, /resurrected kept/)
  const newDaemon = JSON.parse((await home.sup(['ping', '--json'])).stdout).pid
  assert.notEqual(newDaemon, oldDaemon)
  const after = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'both workers back' })
  assert.deepEqual(after.map((r) => r.name), ['kept', 'kept'])
  assert.ok(after.every((r) => !before.some((b) => b.pid === r.pid)), 'new processes')
})

test('PM2_HOME/sup is the home when SUP_HOME is not set', async (t) => {
  const home = useSupHome(t)
  const pm2Home = mkdtempSync(join(tmpdir(), 'sup-pm2-home-'))
  const env = { SUP_HOME: '', PM2_HOME: pm2Home }
  t.after(async () => {
    await home.sup(['kill'], { env })
    rmSync(pm2Home, { recursive: true, force: true })
  })
  const ping = await home.sup(['ping', '--json'], { env })
  assert.equal(ping.code, 0, ping.stderr)
  assert.equal(JSON.parse(ping.stdout).home, join(pm2Home, 'sup'))
})
