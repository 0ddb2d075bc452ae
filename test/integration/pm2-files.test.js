// @ts-check
// The files a PM2 user's scripts name (docs/pm2.md#files-on-disk): in PM2's own home sup keeps
// PM2's names (dump.pm2, dump.pm2.bak, pm2.pid), a broken dump is dropped for its .bak, and
// PM2_PID_FILE_PATH puts a copy of the daemon's pid where it asks.
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

const SCRIPT = join(APPS, 'signal-logger.js')

test('SUP_HOME set to PM2\'s home: dump.pm2 and its .bak, pm2.pid, a broken dump dropped for the .bak', async (t) => {
  const home = useSupHome(t)
  // PM2's home here is $PM2_HOME; SUP_HOME is the same folder
  const pm2 = { env: { PM2_HOME: home.home } }
  const dump = join(home.home, 'dump.pm2')
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'web', '-i', '2'], pm2)).code, 0)
  await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'two workers online' })

  const daemonPid = JSON.parse((await home.sup(['ping', '--json'], pm2)).stdout).pid
  assert.equal(readFileSync(join(home.home, 'pm2.pid'), 'utf8'), `${daemonPid}\n`, 'PM2\'s pid file, with the daemon\'s pid')
  assert.equal(existsSync(join(home.home, 'daemon.pid')), false)

  const saved = await home.sup(['save'], pm2)
  assert.equal(saved.code, 0, saved.stderr)
  assert.ok(saved.stdout.includes(dump), saved.stdout)
  assert.equal(existsSync(dump), true)
  assert.equal(existsSync(`${dump}.bak`), false, 'a first save has nothing to back up')
  assert.equal(existsSync(join(home.home, 'dump.json')), false, 'one dump, under PM2\'s name')
  assert.equal((await home.sup(['save'], pm2)).code, 0)
  assert.equal(existsSync(`${dump}.bak`), true, 'the second save keeps the first as dump.pm2.bak')

  // PM2's e2e resurrect.sh: a broken dump is read from its .bak and deleted
  assert.equal((await home.sup(['delete', 'all'], pm2)).code, 0)
  writeFileSync(dump, '[{\n')
  const fromBak = await home.sup(['resurrect'], pm2)
  assert.equal(fromBak.code, 0, fromBak.stderr)
  assert.match(fromBak.stdout + fromBak.stderr, /dump\.pm2\.bak/)
  assert.equal(existsSync(dump), false, 'the broken dump is gone from its place')
  await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.name === 'web' && r.status === 'online'), { what: 'web back from the .bak' })

  // ... and stays what was saved while the dump is missing
  assert.equal((await home.sup(['delete', 'all'], pm2)).code, 0)
  const again = await home.sup(['resurrect'], pm2)
  assert.equal(again.code, 0, again.stderr)
  await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.name === 'web' && r.status === 'online'), { what: 'web back again from the .bak' })

  const killed = await home.sup(['kill'], pm2)
  assert.equal(killed.code, 0, killed.stderr)
  assert.equal(existsSync(join(home.home, 'pm2.pid')), false, 'the pid file goes with the daemon')
})

test('a sup home keeps design §8\'s names', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'web'])).code, 0)
  assert.equal((await home.sup(['save'])).code, 0)
  assert.equal(existsSync(join(home.home, 'dump.json')), true)
  assert.equal(existsSync(join(home.home, 'daemon.pid')), true)
  assert.equal(existsSync(join(home.home, 'dump.pm2')), false)
  assert.equal(existsSync(join(home.home, 'pm2.pid')), false)
})

test('PM2_PID_FILE_PATH: the daemon started with it writes its pid there too, and removes it at exit', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-pid-copy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const copy = join(dir, 'toto.pid')
  const ls = await home.sup(['ls'], { env: { PM2_PID_FILE_PATH: copy } })
  assert.equal(ls.code, 0, ls.stderr)
  const daemonPid = JSON.parse((await home.sup(['ping', '--json'])).stdout).pid
  await waitFor(() => existsSync(copy), { what: 'the pid file at PM2_PID_FILE_PATH' })
  assert.equal(readFileSync(copy, 'utf8'), `${daemonPid}\n`)
  assert.equal(readFileSync(home.paths.pidFile, 'utf8'), `${daemonPid}\n`, 'the lock stays in SUP_HOME')

  assert.equal((await home.sup(['kill'])).code, 0)
  assert.equal(existsSync(copy), false, 'removed with the daemon')
})

test('set / multiset / unset / get: values an app gets as environment variables, restarted as in PM2, kept across daemons', async (t) => {
  const home = useSupHome(t)
  const nothing = await home.sup(['unset', 'echo'])
  assert.equal(nothing.code, 0, nothing.stderr)
  assert.match(nothing.stdout, /nothing to remove/)

  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'echo'])).code, 0)
  await waitForRows(home, (rs) => rs.length === 1 && rs[0].status === 'online', { what: 'echo online' })
  const out = JSON.parse((await home.sup(['describe', 'echo', '--json'])).stdout).logs.find((/** @type {string} */ p) => p.endsWith('-out.log'))
  /** The environment of the latest process, as it printed it. */
  const lastEnv = () => {
    const lines = existsSync(out) ? readFileSync(out, 'utf8').split('\n').filter((l) => l.startsWith('ENV ')) : []
    return { starts: lines.length, env: lines.length ? JSON.parse(lines[lines.length - 1].slice(4)) : {} }
  }
  await waitFor(() => lastEnv().starts === 1, { what: 'the first start\'s environment in the log' })
  assert.equal(lastEnv().env.config_var, undefined)

  const set = await home.sup(['set', 'echo.config_var', 'false'])
  assert.equal(set.code, 0, set.stderr)
  assert.equal(set.stdout, 'echo.config_var = false\nrestarted echo with its new values\n')
  await waitFor(() => lastEnv().starts === 2, { what: 'the restarted process\'s environment' })
  assert.equal(lastEnv().env.config_var, 'false', 'the new process has the variable')
  assert.deepEqual(JSON.parse((await home.sup(['describe', 'echo', '--json'])).stdout).settings, { config_var: 'false' })

  assert.equal((await home.sup(['multiset', 'echo.conf false echo.MSG "two words"'])).code, 0)
  await waitFor(() => lastEnv().starts === 3, { what: 'one restart for a multiset' })
  assert.deepEqual([lastEnv().env.conf, lastEnv().env.MSG], ['false', 'two words'])
  assert.equal((await home.ls())[0].restarts, 2, 'one restart per set, as PM2 counts them')

  // kept in SUP_HOME: a new daemon still has them, and an app started later gets them
  assert.equal((await home.sup(['kill'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'echo'])).code, 0)
  await waitFor(() => lastEnv().starts === 4, { what: 'the new daemon\'s first start' })
  assert.equal(lastEnv().env.config_var, 'false')
  const got = await home.sup(['get', 'echo.conf'])
  assert.deepEqual([got.code, got.stdout], [0, 'false\n'])

  const unset = await home.sup(['unset', 'echo.conf'])
  assert.equal(unset.code, 0, unset.stderr)
  const gone = await home.sup(['get', 'echo.conf'])
  assert.equal(gone.code, 1)
  assert.equal(gone.stderr, 'sup: echo.conf is not set (sup get lists every setting)\n')
  const bad = await home.sup(['set', 'echo', 'x'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^sup: "echo" is not <app>\.<key>/)
})
