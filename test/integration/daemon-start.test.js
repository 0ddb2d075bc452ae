// @ts-check
// A cold listing starts the daemon before the CLI has loaded (client/spawn-daemon.js); the
// ways that start can go: first call, two at once, a leftover socket file, a daemon that dies
// as the listing connects, a daemon that refuses to start; the daemon's own V8 flags.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readDaemonPid } from '../../client/daemon.js'
import { APPS, freePort, useSupHome, waitForRows } from '../helpers/sup.js'

const PROCS = join(APPS, '..', 'procs')

test('a cold sup ls starts the daemon and answers; the next call finds the same daemon', async (t) => {
  const home = useSupHome(t)
  const first = await home.sup(['ls'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stdout, /no apps/)
  const ping = await home.sup(['ping', '--json'])
  const again = await home.sup(['ping', '--json'])
  assert.equal(JSON.parse(again.stdout).pid, JSON.parse(ping.stdout).pid)
})

test('two cold listings at once share one daemon', async (t) => {
  const home = useSupHome(t)
  const [a, b] = await Promise.all([home.sup(['jlist']), home.sup(['ls', '--json'])])
  assert.equal(a.code, 0, a.stderr)
  assert.equal(b.code, 0, b.stderr)
  assert.deepEqual(JSON.parse(a.stdout), [])
  assert.deepEqual(JSON.parse(b.stdout), [])
  const ping = JSON.parse((await home.sup(['ping', '--json'])).stdout)
  assert.equal(ping.apps, 0)
})

test('a leftover socket file with no daemon behind it does not stop a listing', async (t) => {
  const home = useSupHome(t)
  await home.sup(['ping'])
  assert.equal((await home.sup(['kill'])).code, 0)
  writeFileSync(home.paths.socket, '')
  const listed = await home.sup(['status', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  assert.deepEqual(JSON.parse(listed.stdout), [])
})

test('a daemon that dies as a listing connects (its socket resets the connection) is replaced, not reported', async (t) => {
  const home = useSupHome(t)
  await home.sup(['ping'])
  assert.equal((await home.sup(['kill'])).code, 0)
  const dying = spawn('python3', [join(PROCS, 'resets-first-connection.py'), home.paths.socket], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => dying.kill('SIGKILL'))
  await once(dying.stdout, 'data')
  const listed = await home.sup(['ls', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  assert.deepEqual(JSON.parse(listed.stdout), [])
  assert.notEqual(dying.exitCode ?? dying.signalCode, null, 'the listing met the dying socket, not a daemon alone')
})

test('a daemon that refuses to start fails the listing with its own one-line reason', async (t) => {
  const home = useSupHome(t)
  const listed = await home.sup(['ls'], { env: { SUP_BALANCE: 'sideways' } })
  assert.equal(listed.code, 1)
  assert.match(listed.stderr, /^sup: invalid SUP_BALANCE "sideways" \(use "rr": .*\)\n$/)
  assert.equal(listed.stdout, '')
})

test('the daemon runs with small V8 semi-spaces; its workers, cluster and fork, do not inherit the flag', async (t) => {
  const home = useSupHome(t)
  const port = await freePort(2)
  const server = join(APPS, 'http-server.js')
  for (const args of [['-i', '1', '-n', 'clustered'], ['-n', 'forked']]) {
    const started = await home.sup(['start', server, ...args], { env: { PORT: String(args[0] === '-i' ? port : port + 1) } })
    assert.equal(started.code, 0, started.stderr)
  }
  const rows = await waitForRows(home, (r) => r.length === 2 && r.every((w) => w.status === 'online' && w.pid), { what: 'both workers online' })
  const argvOf = (/** @type {number} */ pid) => readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
  const daemonPid = readDaemonPid(home.paths)
  assert.ok(daemonPid)
  assert.ok(argvOf(daemonPid).includes('--max-semi-space-size=1'), `daemon argv: ${argvOf(daemonPid).join(' ')}`)
  for (const row of rows) {
    const argv = argvOf(/** @type {number} */ (row.pid))
    assert.ok(!argv.some((a) => a.startsWith('--max-semi-space-size')), `${row.name} argv: ${argv.join(' ')}`)
  }
})
