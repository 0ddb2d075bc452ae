// @ts-check
// `sup --host` against a real OpenSSH server on 127.0.0.1 (Debian's sshd, started here as
// root with its own config, host key and port): two local users stand for two machines, each
// with its own daemon in its own SUP_HOME, and the CLI reaches them with a test key through
// an ssh config the test writes (SUP_SSH_COMMAND="ssh -F …"). A third "host" is the first user
// with a second home (`fleet1:<dir>/h3`), and `deadhost` a port nothing listens on.
//
// The users supfleet1 and supfleet2 are created once (useradd -m, password "*": no password
// login) and left in place for the next run: they have no authorized_keys of their own, so
// only this test's sshd, with its own key file, lets anyone in as them (docs/testing.md).
//
// The test users run sup from a copy of what it needs, made in a 0755 folder under the test's
// temp dir: the checkout itself may sit where they cannot read it (CI clones under /root, 0700).
import assert from 'node:assert/strict'
import { execFile, spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { join, relative, sep } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { listDescendants, sendSignal } from '../../daemon/worker/process-tree.js'
import { ROOT, SUP_BIN, freePort } from '../helpers/sup.js'
import { startTerminal } from '../helpers/tmux.js'
import { waitFor } from '../helpers/wait.js'

const USERS = ['supfleet1', 'supfleet2']
const IS_ROOT = process.getuid?.() === 0
const HAS_SSHD = existsSync('/usr/sbin/sshd') && spawnSync('ssh', ['-V']).status === 0 && spawnSync('ssh-keygen', ['-?']).error === undefined
const skip = !IS_ROOT ? 'needs root, to start sshd and play two users' : !HAS_SSHD ? 'needs openssh-server and openssh-client (test/system-deps.js installs them as root)' : false

/**
 * @param {string} file
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, timeout?: number }} [options]
 * @returns {Promise<{ code: number, stdout: string, stderr: string, ms: number }>}
 */
function run (file, args, { env = process.env, timeout = 60_000 } = {}) {
  const started = Date.now()
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout, cwd: '/' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr, ms: Date.now() - started })
    })
  })
}

/** @param {string} name @returns {{ uid: number, gid: number, home: string }} */
function ensureUser (name) {
  if (spawnSync('id', ['-u', name]).status !== 0) {
    const made = spawnSync('useradd', ['-m', '-p', '*', '-s', '/bin/sh', name], { encoding: 'utf8' })
    // Another run of this test (a second CI lane) may have made it in the meantime.
    if (made.status !== 0 && spawnSync('id', ['-u', name]).status !== 0) throw new Error(`useradd ${name}: ${made.stderr}`)
  }
  const entry = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.startsWith(`${name}:`))?.split(':')
  if (!entry) throw new Error(`${name} is not in /etc/passwd`)
  return { uid: Number(entry[2]), gid: Number(entry[3]), home: entry[5] }
}

/**
 * Copy what a remote sup runs from (package.json, bin/, client/, daemon/, ipc/, the runtime
 * packages of node_modules) and the fixture apps into `to`, readable by every user.
 * @param {string} to
 */
function readableCopy (to) {
  mkdirSync(to, { mode: 0o755 })
  for (const part of ['package.json', 'bin', 'client', 'daemon', 'ipc', join('test', 'fixtures', 'apps')]) {
    cpSync(join(ROOT, part), join(to, part), { recursive: true })
  }
  // The runtime packages only (a few MB, not the dev tools): npm lists each folder, nested ones
  // under their parent, which the parent's copy already carries. Without npm, all of node_modules.
  const modules = join(ROOT, 'node_modules')
  const listed = spawnSync('npm', ['ls', '--omit=dev', '--all', '--parseable'], { cwd: ROOT, encoding: 'utf8' })
  const packages = (listed.stdout ?? '').split('\n').filter((p) => p.startsWith(modules + sep)).sort()
  let copied = ''
  for (const p of packages.length ? packages : [modules]) {
    if (copied && p.startsWith(copied + sep)) continue
    cpSync(p, join(to, relative(ROOT, p)), { recursive: true })
    copied = p
  }
  const opened = spawnSync('chmod', ['-R', 'a+rX', to], { encoding: 'utf8' })
  assert.equal(opened.status, 0, opened.stderr)
}

/**
 * Can `uid` read `file` (every folder above it searchable by others)?
 * @param {number} uid
 * @param {string} file
 */
function readableBy (uid, file) {
  const r = spawnSync('setpriv', [`--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, '-e', `require('fs').accessSync(${JSON.stringify(file)}, 4)`])
  return r.status === 0
}

/** @param {number} port */
function accepts (port) {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1')
    s.once('connect', () => { s.destroy(); resolve(true) })
    s.once('error', () => resolve(false))
  })
}

describe('sup --host over a real sshd on 127.0.0.1 (needs root and openssh)', { skip }, () => {
  /** @type {string} */
  let dir
  /** @type {import('node:child_process').ChildProcess | null} */
  let sshd = null
  /** @type {Array<{ name: string, spec: string, uid: number, gid: number, userHome: string, home: string, port: number }>} */
  const hosts = []
  /** @type {NodeJS.ProcessEnv} */
  let env
  /** @type {import('node:net').Server | null} */
  let silent = null
  /** The copy of sup the test users run, and its fixture apps. */
  let remoteBin = ''
  let apps = ''

  /**
   * The CLI as one of the test users, on "its machine" (to start apps and read the truth).
   * @param {typeof hosts[number]} h
   * @param {string[]} argv
   * @param {Record<string, string>} [extra]
   */
  const supOn = (h, argv, extra = {}) => run('setpriv', [`--reuid=${h.uid}`, `--regid=${h.gid}`, '--clear-groups', process.execPath, remoteBin, ...argv], {
    env: { PATH: process.env.PATH, HOME: h.userHome, SUP_HOME: h.home, NO_COLOR: '1', ...extra }
  })
  /** @param {typeof hosts[number]} h */
  const rowsOn = async (h) => {
    const r = await supOn(h, ['ls', '--json'])
    assert.equal(r.code, 0, r.stderr)
    return /** @type {any[]} */ (JSON.parse(r.stdout))
  }
  /** The CLI here, reaching the hosts over ssh. @param {string[]} argv @param {Record<string, string>} [extra] */
  const sup = (argv, extra = {}) => run(process.execPath, [SUP_BIN, ...argv], { env: { ...env, ...extra } })

  before(async () => {
    dir = mkdtempSync('/tmp/sup-fleet-')
    chmodSync(dir, 0o711)
    const users = USERS.map(ensureUser)
    readableCopy(join(dir, 'sup'))
    remoteBin = join(dir, 'sup', 'bin', 'sup.cjs')
    apps = join(dir, 'sup', 'test', 'fixtures', 'apps')
    for (const u of users) assert.ok(readableBy(u.uid, remoteBin), `uid ${u.uid} can read ${remoteBin}`)
    mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
    for (const key of ['host_key', 'client_key']) {
      const made = spawnSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'sup-fleet-test', '-f', join(dir, key)], { encoding: 'utf8' })
      assert.equal(made.status, 0, made.stderr)
    }
    writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'client_key.pub')), { mode: 0o644 })
    const port = await freePort()
    const dead = await freePort()
    // A host that accepts the connection and never says a word (a hung machine, a black hole).
    silent = createServer(() => {}).listen(0, '127.0.0.1')
    await new Promise((resolve) => silent?.once('listening', resolve))
    const silentPort = /** @type {import('node:net').AddressInfo} */ (silent.address()).port
    writeFileSync(join(dir, 'sshd_config'), [
      `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `PidFile ${join(dir, 'sshd.pid')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`, `AllowUsers ${USERS.join(' ')}`,
      'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PubkeyAuthentication yes', 'UsePAM no',
      'StrictModes no', 'PermitRootLogin no', 'LogLevel ERROR', ''
    ].join('\n'))
    sshd = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] })
    let sshdErr = ''
    sshd.stderr?.on('data', (c) => { sshdErr += c })
    await waitFor(() => accepts(port), { what: 'sshd to listen', timeout: 15_000, interval: 50, show: () => sshdErr })

    const block = (/** @type {string} */ alias, /** @type {string} */ user, /** @type {number} */ p) => [
      `Host ${alias}`, '  HostName 127.0.0.1', `  Port ${p}`, `  User ${user}`, `  IdentityFile ${join(dir, 'client_key')}`,
      '  IdentitiesOnly yes', '  StrictHostKeyChecking no', '  UserKnownHostsFile /dev/null', '  LogLevel ERROR'
    ].join('\n')
    writeFileSync(join(dir, 'ssh_config'), [block('fleet1', USERS[0], port), block('fleet2', USERS[1], port), block('deadhost', USERS[0], dead), block('silenthost', USERS[0], silentPort), ''].join('\n'), { mode: 0o600 })
    env = {
      PATH: process.env.PATH,
      HOME: dir,
      NO_COLOR: '1',
      SUP_SSH_COMMAND: `ssh -F ${join(dir, 'ssh_config')}`,
      SUP_REMOTE_SUP: `${process.execPath} ${remoteBin}`,
      SUP_HOST_TIMEOUT: '5'
    }

    // Three homes: fleet1 and fleet2, and a second home of fleet1's user (a third "machine").
    const homes = [['fleet1', users[0]], ['fleet2', users[1]], ['fleet1', users[0]]]
    for (const [i, [name, user]] of homes.entries()) {
      const home = join(dir, `h${i + 1}`)
      mkdirSync(home, { mode: 0o700 })
      chownSync(home, user.uid, user.gid)
      const versionFile = join(dir, `version${i + 1}`)
      writeFileSync(versionFile, 'v1', { mode: 0o644 })
      hosts.push({ name, spec: `${name}:${home}`, uid: user.uid, gid: user.gid, userHome: user.home, home, port: await freePort() })
      const h = hosts[i]
      const started = await supOn(h, ['start', join(apps, 'tunable-http.js'), '-i', '1', '-n', 'api', '--kill-timeout', '2000'], { PORT: String(h.port), VERSION_FILE: versionFile })
      assert.equal(started.code, 0, started.stderr)
    }
  })

  after(async () => {
    for (const h of hosts) {
      const pid = Number(readFileSync(join(h.home, 'daemon.pid'), 'utf8'))
      const tree = Number.isInteger(pid) ? [pid, ...(await listDescendants(pid)).map((p) => p.pid)] : []
      await supOn(h, ['kill'])
      for (const p of tree) sendSignal(p, 'SIGKILL')
    }
    if (sshd?.pid) sendSignal(sshd.pid, 'SIGKILL')
    silent?.close()
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  test('ls over two hosts: one table with a host column, --json rows carry host', async (t) => {
    const both = `${hosts[0].spec},${hosts[1].spec}`
    const table = await sup(['--host', both, 'ls'])
    assert.equal(table.code, 0, table.stderr)
    t.diagnostic(`sup --host <2 hosts> ls: ${table.ms} ms`)
    const lines = table.stdout.trim().split('\n')
    assert.match(lines[0], /^host\s+id\s+name/)
    assert.deepEqual(lines.slice(1).map((l) => l.split(/\s+/).slice(0, 3).join(' ')).sort(), ['fleet1 0 api', 'fleet2 0 api'])
    const json = await sup(['ls', '--json', '--host', both])
    assert.equal(json.code, 0, json.stderr)
    const rows = JSON.parse(json.stdout)
    assert.deepEqual(rows.map((/** @type {any} */ r) => `${r.host} ${r.name} ${r.status}`).sort(), ['fleet1 api online', 'fleet2 api online'])
    // The hosts file, for --host all.
    writeFileSync(join(dir, 'hosts'), `# the fleet\n${hosts[0].spec}\n${hosts[1].spec}\n`)
    const all = await sup(['--host', 'all', 'ls', '--json'], { SUP_HOSTS_FILE: join(dir, 'hosts') })
    assert.equal(all.code, 0, all.stderr)
    assert.deepEqual(JSON.parse(all.stdout).map((/** @type {any} */ r) => r.host).sort(), ['fleet1', 'fleet2'])
    const truth = [...await rowsOn(hosts[0]), ...await rowsOn(hosts[1])].map((r) => r.pid).sort()
    assert.deepEqual(rows.map((/** @type {any} */ r) => r.pid).sort(), truth, 'the pids each host\'s own sup ls shows')
  })

  test('an action on one host leaves the other untouched', async () => {
    const [before1] = await rowsOn(hosts[0])
    const [before2] = await rowsOn(hosts[1])
    const restart = await sup(['--host', hosts[1].spec, 'restart', 'api'])
    assert.equal(restart.code, 0, restart.stderr)
    assert.match(restart.stdout, /^fleet2 \| restarted api \(1 worker\)/m)
    const [after1] = await rowsOn(hosts[0])
    const [after2] = await rowsOn(hosts[1])
    assert.equal(after2.restarts, before2.restarts + 1)
    assert.notEqual(after2.pid, before2.pid)
    assert.deepEqual([after1.pid, after1.restarts], [before1.pid, before1.restarts], 'fleet1 untouched')
  })

  test('a dead host is a row with its error, within the timeout; the exit code is 1', async (t) => {
    const r = await sup(['--host', `${hosts[0].spec},deadhost`, 'ls'])
    assert.equal(r.code, 1)
    assert.ok(r.ms < 20_000, `answered in ${r.ms} ms`)
    t.diagnostic(`sup --host <1 host, 1 closed port> ls: ${r.ms} ms`)
    assert.match(r.stdout, /^fleet1\s+0\s+api/m)
    assert.match(r.stdout, /^deadhost\s+-\s+-\s+-\s+-\s+unreachable/m)
    assert.match(r.stdout, /^deadhost: .*Connection refused/m)
    assert.match(r.stderr, /^sup: 1 of 2 hosts failed: deadhost$/m)
    const json = JSON.parse((await sup(['--host', `${hosts[0].spec},deadhost`, 'ls', '--json'])).stdout)
    assert.equal(json.find((/** @type {any} */ r) => r.host === 'deadhost')?.error.code, 'SUP_ERR_HOST_UNREACHABLE')

    // A host that never answers: its row comes within SUP_HOST_TIMEOUT (5 s here) plus the grace.
    const hung = await sup(['--host', `silenthost,${hosts[1].spec}`, 'ls', '--json'])
    assert.equal(hung.code, 1)
    assert.ok(hung.ms < 25_000, `answered in ${hung.ms} ms`)
    const rows = JSON.parse(hung.stdout)
    t.diagnostic(`sup --host <a silent host, 1 host> ls: ${hung.ms} ms: ${rows.find((/** @type {any} */ r) => r.host === 'silenthost')?.error.message}`)
    assert.match(rows.find((/** @type {any} */ r) => r.host === 'silenthost')?.error.code, /^SUP_ERR_HOST_(UNREACHABLE|TIMEOUT)$/)
    assert.equal(rows.find((/** @type {any} */ r) => r.host === 'fleet2')?.status, 'online', 'the other host still listed')
  })

  test('a rolling reload goes host by host and stops at the first that fails; the rest are not touched', async (t) => {
    const [h1, h2, h3] = hosts
    const before = await Promise.all(hosts.map(async (h) => (await rowsOn(h))[0]))
    // fleet2's next release crashes on boot: its reload aborts, its old worker keeps serving.
    writeFileSync(join(dir, 'version2'), 'crash')
    // fleet1 twice (two homes): those two go by their whole spec, fleet2 by its name.
    const r = await sup(['reload', 'api', '--host', `${h1.spec},${h2.spec},${h3.spec}`])
    assert.equal(r.code, 1, r.stdout + r.stderr)
    t.diagnostic(`sup reload api --host <3 hosts>, stopped at the second: ${r.ms} ms`)
    const after = await Promise.all(hosts.map(async (h) => (await rowsOn(h))[0]))
    assert.equal(after[0].restarts, before[0].restarts + 1, 'fleet1 reloaded')
    assert.notEqual(after[0].pid, before[0].pid)
    assert.deepEqual([after[1].pid, after[1].status], [before[1].pid, 'online'], 'fleet2 kept its old worker')
    assert.deepEqual([after[2].pid, after[2].restarts], [before[2].pid, before[2].restarts], 'the third host was not touched')
    assert.ok(r.stdout.split('\n').includes(`${h3.spec} | not touched`), r.stdout)
    assert.ok(r.stderr.split('\n').includes(`sup: reload stopped at fleet2, after 1 host(s) done; not touched: ${h3.spec}`), r.stderr)
    writeFileSync(join(dir, 'version2'), 'v1')
  })

  test('describe and logs: each host\'s lines prefixed with its name', async () => {
    const both = `${hosts[0].spec},${hosts[1].spec}`
    const logs = await sup(['--host', both, 'logs', 'api', '--nostream', '--lines', '5'])
    assert.equal(logs.code, 0, logs.stderr)
    assert.match(logs.stdout, /^fleet1 \| .*listening on/m)
    assert.match(logs.stdout, /^fleet2 \| .*listening on/m)
    const described = await sup(['--host', both, 'describe', 'api', '--json'])
    assert.equal(described.code, 0, described.stderr)
    assert.deepEqual(described.stdout.trim().split('\n').map((l) => JSON.parse(l).host), ['fleet1', 'fleet2'])
  })

  test('monit --host in a terminal: each host\'s apps with its host, its totals, / by host, r on the right host', async (t) => {
    const both = `${hosts[0].spec},${hosts[1].spec}`
    const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit --host ${both}`, width: 120, height: 30, env: { ...env, TERM: 'xterm' } })
    const appLine = (/** @type {string} */ s, /** @type {string} */ host) => s.split('\n').find((l) => new RegExp(`^│[▸▾] ${host} api \\(1\\) +online`).test(l))
    const first = await term.waitFor((s) => Boolean(appLine(s, 'fleet1') && appLine(s, 'fleet2')), { what: 'api of both hosts', timeout: 30_000 })
    assert.match(first, /fleet1: 1 app 1\/1 up \S+ \S+ · fleet2: 1 app 1\/1 up/)
    await term.keys('/', 'f', 'l', 'e', 'e', 't', '2', 'Enter')
    await term.waitFor((s) => Boolean(appLine(s, 'fleet2')) && !appLine(s, 'fleet1'), { what: 'only fleet2 left by the filter' })
    const [before1] = await rowsOn(hosts[0])
    const [before2] = await rowsOn(hosts[1])
    await term.keys('r')
    await term.waitFor((s) => s.includes('restart fleet2 api'), { what: 'the question naming fleet2' })
    await term.keys('y')
    await waitFor(async () => (await rowsOn(hosts[1]))[0].restarts === before2.restarts + 1, { what: 'fleet2\'s api restarted', timeout: 30_000 })
    const [after1] = await rowsOn(hosts[0])
    assert.deepEqual([after1.pid, after1.restarts], [before1.pid, before1.restarts], 'fleet1 untouched')
    await term.keys('q')
    await waitFor(async () => !(await term.running()), { what: 'monit to exit on q', interval: 100 })
  })
})
