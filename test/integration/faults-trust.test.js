// @ts-check
// Hostile local users (issue 19, design §12): uid B prepares a SUP_HOME, a socket or a symlink
// for uid A's sup to use. What must hold: A's CLI and daemon refuse, with one coded line that
// says the fix, and nothing of B's runs as A, hears from A, or is written through by A.
// Run as root, which plays A and B with setpriv; elsewhere the cases are skipped.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, chownSync, closeSync, existsSync, lchownSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APP_DEFAULTS } from '../../ipc/app-config.js'
import { resolvePaths } from '../../ipc/paths.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, ROOT, SUP_BIN, useSupHome, waitForRows } from '../helpers/sup.js'

const IS_ROOT = process.getuid?.() === 0
/** uid A: the victim. nobody exists on every Linux. */
const A = 65534
/** uid B: the other user; a uid no account has, so nothing else on the machine is B. */
const B = 61002
const DAEMON_MAIN = join(ROOT, 'daemon', 'main.js')

/**
 * A folder every uid may enter, removed with whatever ran from it when the test ends.
 * @param {import('node:test').TestContext} t
 */
function sharedDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-trust-'))
  chmodSync(dir, 0o755)
  t.after(() => {
    killEverythingIn(dir)
    rmSync(dir, { recursive: true, force: true })
  })
  return dir
}

/**
 * SIGKILL every process whose environment names `dir` (its SUP_HOME, or the HOME a home was
 * derived from): a daemon that should not have started, when the test runs without the fix.
 * @param {string} dir
 */
function killEverythingIn (dir) {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const env = readFileSync(`/proc/${name}/environ`, 'utf8').split('\0')
      if (env.some((entry) => /^(SUP_)?HOME=/.test(entry) && entry.slice(entry.indexOf('=') + 1).startsWith(dir))) process.kill(Number(name), 'SIGKILL')
    } catch {}
  }
}

/**
 * Run a command as `uid` (its own group, no supplementary groups).
 * @param {number} uid
 * @param {string[]} argv
 * @param {Record<string, string>} env
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function runAs (uid, argv, env) {
  const asUid = uid === 0 ? argv : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', ...argv]
  return new Promise((resolve) => {
    execFile(asUid[0], asUid.slice(1), { env: { PATH: process.env.PATH ?? '', HOME: '/', NO_COLOR: '1', ...env }, timeout: 30_000, cwd: '/' }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

/**
 * The sup CLI as `uid`.
 * @param {number} uid
 * @param {string[]} args
 * @param {Record<string, string>} env
 */
const supAs = (uid, args, env) => runAs(uid, [process.execPath, SUP_BIN, ...args], env)

/**
 * B's trap: a home with a state.json whose one app is B's evil.sh, the way a daemon that
 * crashed would have left it (another boot, state "running"): a daemon that trusts it runs
 * evil.sh, which leaves `pwned` beside itself.
 * @param {string} dir
 * @param {number} owner
 * @param {number} mode
 * @param {string} [name]
 */
function plantHome (dir, owner, mode, name = 'sup') {
  const home = join(dir, name)
  mkdirSync(home)
  const evil = join(dir, 'evil.sh')
  writeFileSync(evil, `#!/bin/sh\ntouch ${join(dir, 'pwned')}\n`, { mode: 0o755 })
  chmodSync(dir, 0o777)
  const config = { ...APP_DEFAULTS, name: 'evil', script: evil, cwd: dir, exec_mode: 'fork', instances: 1, interpreter: 'none' }
  const state = {
    sup_dump: 1,
    version: '0.1.0',
    saved_at: new Date().toISOString(),
    reason: 'change',
    daemon: { pid: 999999, start_time: '1', boot_id: '00000000-0000-0000-0000-000000000000', state: 'running' },
    apps: [{ config, workers: [{ instance: 0, run: true, pid: null, start_time: null }] }]
  }
  writeFileSync(join(home, 'state.json'), JSON.stringify(state))
  for (const file of [home, join(home, 'state.json'), evil]) chownSync(file, owner, owner)
  chmodSync(home, mode)
  return { home, pwned: join(dir, 'pwned') }
}

/** @param {string} stderr */
function oneLine (stderr) {
  assert.equal(stderr.trim().split('\n').length, 1, `one line: ${stderr}`)
}

test('a home made by another user (0777, with a state.json naming its evil.sh): the CLI and the daemon refuse it, evil.sh never runs', { skip: !IS_ROOT && 'needs root, to play two users with setpriv' }, async (t) => {
  const dir = sharedDir(t)
  const { home, pwned } = plantHome(dir, B, 0o777)
  const env = { SUP_HOME: home }

  const ls = await supAs(A, ['ls'], env)
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  assert.match(ls.stderr, new RegExp(`^sup: SUP_HOME ${home} belongs to uid ${B}, not to nobody, .*run sup as uid ${B}, or set SUP_HOME to a folder of your own\\n$`))
  oneLine(ls.stderr)

  // The daemon itself, started by hand (not through the CLI that refused): refuses too.
  const daemon = await runAs(A, [process.execPath, DAEMON_MAIN], env)
  assert.equal(daemon.code, 1, daemon.stdout + daemon.stderr)
  assert.match(daemon.stdout, /SUP_ERR_HOME_NOT_OWNED/)

  assert.ok(!existsSync(join(home, 'daemon.pid')), 'no daemon took the home')
  assert.ok(!existsSync(join(home, 'sup.sock')), 'no socket was made in it')
  assert.ok(!existsSync(pwned), 'evil.sh never ran')
})

test('a home of this user that others may write (0777): refused until chmod 700, then used as before', { skip: !IS_ROOT && 'needs root, to play two users with setpriv' }, async (t) => {
  const dir = sharedDir(t)
  const { home, pwned } = plantHome(dir, A, 0o777)
  const env = { SUP_HOME: home }

  const ls = await supAs(A, ['ls'], env)
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  assert.equal(ls.stderr, `sup: SUP_HOME ${home} can be written by other users (mode 0777), who could plant files sup would run (chmod 700 ${home}, or set SUP_HOME to a folder of your own)\n`)
  assert.ok(!existsSync(pwned), 'evil.sh never ran')

  // Sticky /tmp-like mode is no better: anyone may still create files in it.
  chmodSync(home, 0o1777)
  const sticky = await supAs(A, ['ls'], env)
  assert.equal(sticky.code, 1, sticky.stderr)
  assert.match(sticky.stderr, /SUP_HOME .* can be written by other users \(mode 1777\)/)
  assert.ok(!existsSync(pwned), 'evil.sh never ran')

  // The fix the message gives (B's state.json removed first: the owner's own choice).
  rmSync(join(home, 'state.json'))
  chmodSync(home, 0o700)
  const ping = await supAs(A, ['ping'], env)
  assert.equal(ping.code, 0, ping.stderr)
  const kill = await supAs(A, ['kill'], env)
  assert.equal(kill.code, 0, kill.stderr)
})

test('root with a home another user owns (sudo -E, HOME=/home/alice): refused, "run sup as" that user', { skip: !IS_ROOT && 'needs root' }, async (t) => {
  const dir = sharedDir(t)
  const { home, pwned } = plantHome(dir, A, 0o700, '.sup')
  // No SUP_HOME: the home is ~/.sup of the HOME sudo -E kept.
  const ls = await supAs(0, ['ls'], { HOME: dir })
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  assert.equal(ls.stderr, `sup: SUP_HOME ${home} belongs to nobody, not to root, and sup runs only in a home of its own user: run sup as nobody (sudo -u nobody sup …), or set SUP_HOME to a folder of root's\n`)
  const daemon = await runAs(0, [process.execPath, DAEMON_MAIN], { HOME: dir })
  assert.equal(daemon.code, 1, daemon.stdout + daemon.stderr)
  assert.match(daemon.stdout, /SUP_ERR_HOME_NOT_OWNED/)
  assert.ok(!existsSync(join(home, 'daemon.pid')), 'no daemon took the home')
  assert.ok(!existsSync(pwned), 'nobody\'s saved app never ran as root')
})

test('a socket bound by another user: the CLI refuses before connecting, and sends it nothing', { skip: !IS_ROOT && 'needs root, to play two users with setpriv' }, async (t) => {
  const dir = sharedDir(t)
  /** B's listener: counts what reaches it. @type {{ connections: number, bytes: number }} */
  const heard = { connections: 0, bytes: 0 }
  const listen = async (/** @type {string} */ socket) => {
    const server = createServer((conn) => {
      heard.connections++
      conn.on('data', (chunk) => { heard.bytes += chunk.length })
    })
    await new Promise((resolve) => server.listen(socket, () => resolve(undefined)))
    t.after(() => server.close())
    // Bound by B, and open to anyone, as B would leave it for A.
    chmodSync(socket, 0o777)
    chownSync(socket, B, B)
  }
  const secret = { AWS_SECRET_ACCESS_KEY: 'do-not-send-me' }

  // B's own home, B's socket in it: the home check already refuses.
  const bHome = join(dir, 'b-home')
  mkdirSync(bHome, { mode: 0o777 })
  chmodSync(bHome, 0o777)
  chownSync(bHome, B, B)
  await listen(join(bHome, 'sup.sock'))
  const inB = await supAs(A, ['start', join(APPS, 'http-server.js')], { SUP_HOME: bHome, ...secret })
  assert.equal(inB.code, 1, inB.stdout + inB.stderr)
  oneLine(inB.stderr)

  // A's own home with B's socket in it (how it got there does not matter: root, or a home
  // that was open once): the socket's owner is checked before connecting.
  const aHome = join(dir, 'a-home')
  mkdirSync(aHome, { mode: 0o700 })
  chownSync(aHome, A, A)
  const socket = join(aHome, 'sup.sock')
  await listen(socket)
  for (const args of [['start', join(APPS, 'http-server.js')], ['ls']]) {
    const result = await supAs(A, [...args], { SUP_HOME: aHome, ...secret })
    assert.equal(result.code, 1, result.stdout + result.stderr)
    assert.equal(result.stderr, `sup: refusing to connect to ${socket}: it is owned by uid ${B}, not a socket of this user's daemon, so nothing was sent to it (remove it, or set SUP_HOME to a folder of your own)\n`)
  }
  assert.deepEqual(heard, { connections: 0, bytes: 0 }, 'B\'s listener heard nothing')
})

test('a daemon.log symlink planted in the home: sup refuses it and does not write through it', { skip: process.platform !== 'linux' && 'O_NOFOLLOW semantics tested on Linux' }, async (t) => {
  const home = useSupHome(t)
  const victim = join(home.home, '..', `${home.home.split('/').pop()}-victim`)
  writeFileSync(victim, 'precious\n', { mode: 0o600 })
  t.after(() => rmSync(victim, { force: true }))
  symlinkSync(victim, home.paths.daemonLog)

  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  assert.equal(ls.stderr, `sup: refusing to use ${home.paths.daemonLog}: it is a symbolic link, not a file sup made (remove it; someone may have planted it)\n`)
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n', 'the file the link names is untouched')
  assert.ok(!existsSync(home.paths.socket), 'no daemon started')

  rmSync(home.paths.daemonLog)
  const again = await home.sup(['ls'])
  assert.equal(again.code, 0, again.stderr)
})

test('a SUP_HOME too long for a unix socket path: one coded line naming the length, nothing made', async (t) => {
  const dir = sharedDir(t)
  const home = join(dir, 'h'.repeat(120 - dir.length))
  const { socket } = resolvePaths({ SUP_HOME: home })
  const ls = await supAs(process.getuid?.() ?? 0, ['ls'], { SUP_HOME: home })
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  const max = process.platform === 'linux' ? 107 : 103
  assert.equal(ls.stderr, `sup: SUP_HOME ${home} is too long: its socket path would be ${Buffer.byteLength(socket)} bytes, and a unix socket path takes at most ${max} here (set SUP_HOME to a path of at most ${max - 9} bytes)\n`)
  assert.ok(!existsSync(home), 'no home made')
})

test('a SUP_HOME that cannot be created: one coded line, not a raw EACCES', { skip: !IS_ROOT && 'needs root, to play another user with setpriv' }, async (t) => {
  const dir = sharedDir(t)
  const locked = join(dir, 'locked')
  mkdirSync(locked, { mode: 0o755 })
  const home = join(locked, 'sup')
  const ls = await supAs(A, ['ls'], { SUP_HOME: home })
  assert.equal(ls.code, 1, ls.stdout + ls.stderr)
  assert.equal(ls.stderr, `sup: cannot create SUP_HOME ${home}: permission denied (set SUP_HOME to a folder you can write, or create it: mkdir -m 700 ${home})\n`)
})

test('a home sup creates is 0700, its missing parents made as mkdir -p makes them', { skip: !IS_ROOT && 'needs root, to play another user with setpriv' }, async (t) => {
  const dir = sharedDir(t)
  const parent = join(dir, 'open')
  mkdirSync(parent, { mode: 0o777 })
  chmodSync(parent, 0o777)
  const home = join(parent, 'deeper', 'sup')
  const ping = await supAs(A, ['ping'], { SUP_HOME: home })
  assert.equal(ping.code, 0, ping.stderr)
  const stat = statSync(home)
  assert.equal(stat.mode & 0o777, 0o700)
  assert.equal(stat.uid, A)
  const kill = await supAs(A, ['kill'], { SUP_HOME: home })
  assert.equal(kill.code, 0, kill.stderr)
})

test('a root daemon writes pid_file and SUP_PID_FILE through random temp names, and opens log files without following links: links B planted leave a root-owned file untouched', { skip: !IS_ROOT && 'needs root: the case is a root daemon' }, async (t) => {
  const dir = sharedDir(t)
  const victim = join(dir, 'victim')
  writeFileSync(victim, 'root:x:0:0\n', { mode: 0o644 })
  // A folder every user may write, as /tmp or /var/tmp are.
  const run = join(dir, 'run')
  mkdirSync(run)
  chmodSync(run, 0o1777)
  /** @param {string} path */
  const plant = (path) => { symlinkSync(victim, path); lchownSync(path, B, B) }

  const home = useSupHome(t)
  const copy = join(run, 'sup.pid')
  plant(copy)
  const ping = await home.sup(['ping', '--json'], { env: { SUP_PID_FILE: copy } })
  assert.equal(ping.code, 0, ping.stderr)
  const daemonPid = JSON.parse(ping.stdout).pid
  await waitFor(() => !lstatSync(copy).isSymbolicLink(), { what: 'SUP_PID_FILE written' })
  assert.equal(readFileSync(copy, 'utf8'), `${daemonPid}\n`)

  // The worker's file is <pid_file>-0.pid; before, its temp file was <that>.<daemon pid>.tmp.
  const pidFile = join(run, 'app.pid')
  plant(`${join(run, 'app-0.pid')}.${daemonPid}.tmp`)
  plant(join(run, 'app-0.pid'))
  const started = await home.sup(['start', join(APPS, 'stalls.js'), '--name', 'app', '--pid', pidFile])
  assert.equal(started.code, 0, started.stderr)
  const [row] = await home.ls()
  await waitFor(() => !lstatSync(join(run, 'app-0.pid')).isSymbolicLink(), { what: 'the worker\'s pid file written' })
  assert.equal(readFileSync(join(run, 'app-0.pid'), 'utf8'), `${row.pid}\n`)

  // A log file is opened with O_NOFOLLOW too: a link at its path is an unwritable log, not a way in.
  const out = join(run, 'out.log')
  plant(out)
  const chatty = await home.sup(['start', join(APPS, 'chatty.js'), '--name', 'talk', '-o', out], { env: { LINES: '1', SIZE: '10' } })
  assert.equal(chatty.code, 0, chatty.stderr)
  await waitForRows(home, (rows) => rows.some((r) => r.name === 'talk' && r.log_error?.code === 'SUP_ERR_LOG_UNWRITABLE'), { what: 'the log error on the row' })
  assert.ok(lstatSync(out).isSymbolicLink())

  assert.equal(readFileSync(victim, 'utf8'), 'root:x:0:0\n', 'the root-owned file the links name is untouched')
})

test('a file root\'s shell had open when it ran sup start: the daemon closes it, and no worker (nobody\'s included) inherits it', { skip: !IS_ROOT && 'needs root: the case is a root daemon running a worker as another user' }, async (t) => {
  const dir = sharedDir(t)
  const secret = join(dir, 'secret')
  writeFileSync(secret, 'root only\n', { mode: 0o600 })
  const home = useSupHome(t)
  // The CLI inherits the secret as its fd 30, not close-on-exec, as a shell's `exec 30<secret`
  // leaves it (Node passes such descriptors on from 10 up).
  const fd = openSync(secret, 'r')
  t.after(() => closeSync(fd))
  const stdio = /** @type {Array<'ignore' | 'pipe' | number>} */ (['ignore', 'pipe', 'pipe', ...Array.from({ length: 27 }, () => 'ignore'), fd])
  const cli = spawn(process.execPath, [SUP_BIN, 'start', join(APPS, 'stalls.js'), '--name', 'app', '--uid', String(A)], { env: { ...process.env, SUP_HOME: home.home }, stdio })
  let stderr = ''
  cli.stderr?.setEncoding('utf8').on('data', (text) => { stderr += text })
  cli.stdout?.resume()
  const [code] = await once(cli, 'exit')
  assert.equal(code, 0, stderr)
  const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'online', { what: 'the app online' })
  const daemonPid = Number(readFileSync(home.paths.pidFile, 'utf8'))
  /** @param {number} pid */
  const holders = (pid) => readdirSync(`/proc/${pid}/fd`).filter((entry) => { try { return readlinkSync(`/proc/${pid}/fd/${entry}`) === secret } catch { return false } })
  assert.deepEqual(holders(/** @type {number} */ (row.pid)), [], 'the worker (uid nobody) holds no descriptor of the secret')
  assert.deepEqual(holders(daemonPid), [], 'nor does the daemon')
  assert.match(readFileSync(home.paths.daemonLog, 'utf8'), /"fds":\[[^\]]*\b30\b[^\]]*\],"msg":"closed \d+ descriptor\(s\) inherited from the process that started sup/)
})
