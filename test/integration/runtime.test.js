// @ts-check
// sup-runtime: the daemon in the foreground, as a container runs it.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { EventEmitter } from 'node:events'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { basename, join } from 'node:path'
import { test } from 'node:test'
import { APPS, ROOT, freePort, httpGet, isAlive, useSupHome, waitForExit } from '../helpers/sup.js'
import { killEverythingOf, pidsRunning } from '../helpers/procs.js'
import { waitForHttp } from '../helpers/under-load.js'
import { waitFor, waitForEvent, within } from '../helpers/wait.js'

const RUNTIME = join(ROOT, 'bin', 'sup-runtime.js')

/**
 * Start sup-runtime; its output is collected line by line.
 * @param {import('node:test').TestContext} t
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, command?: string[] }} [options] command: run it through this (unshare ...)
 */
function startRuntime (t, home, args, { env = {}, command = [] } = {}) {
  const argv = [...command, process.execPath, RUNTIME, ...args]
  const child = spawn(argv[0], argv.slice(1), { env: { ...home.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => {
    child.kill('SIGKILL')
    killEverythingOf(home.home)
  })
  /** @type {{ out: string[], err: string[] }} */
  const lines = { out: [], err: [] }
  /** says 'line' (stream, line) for each line as it comes */
  const arrivals = new EventEmitter()
  for (const stream of /** @type {const} */ (['out', 'err'])) {
    let partial = ''
    child[stream === 'out' ? 'stdout' : 'stderr'].setEncoding('utf8').on('data', (chunk) => {
      const parts = (partial + chunk).split('\n')
      partial = /** @type {string} */ (parts.pop())
      lines[stream].push(...parts)
      for (const line of parts) arrivals.emit('line', stream, line)
    })
  }
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })))
  /**
   * Resolve with the first line of `stream` matching, waiting up to `timeout`.
   * @param {'out' | 'err'} stream
   * @param {RegExp} pattern
   * @param {number} [timeout]
   * @returns {Promise<string>}
   */
  const waitForLine = async (stream, pattern, timeout = 15_000) => {
    const hit = lines[stream].find((l) => pattern.test(l))
    if (hit !== undefined) return hit
    const [, line] = await waitForEvent(arrivals, 'line', {
      what: `a ${stream} line matching ${pattern}`,
      timeout,
      filter: (s, l) => s === stream && pattern.test(l),
      show: () => `\n${lines.out.join('\n')}\n---\n${lines.err.join('\n')}`
    })
    return line
  }
  /**
   * Its exit, within a deadline: a runtime that never exits fails the test with its output
   * instead of holding the whole run (it did once: see daemon/foreground.js on its log's fd).
   * @returns {Promise<{ code: number | null, signal: string | null }>}
   */
  const exit = () => within(exited, { what: 'sup-runtime to exit', timeout: 30_000, show: () => `\n${lines.out.join('\n')}\n---\n${lines.err.join('\n')}` })
  return { child, lines, waitForLine, exit }
}

test('sup-runtime runs apps in the foreground: prefixed logs, the CLI works against it, SIGTERM exits 0 and leaves nothing', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const rt = startRuntime(t, home, [join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  await rt.waitForLine('out', new RegExp(`^web\\[0\\] \\| listening on ${port}$`))
  await rt.waitForLine('out', new RegExp(`^web\\[1\\] \\| listening on ${port}$`))
  await rt.waitForLine('err', /^sup-runtime \| web\[1\] online \(pid \d+\)$/)
  await waitForHttp(port)

  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => `${r.name}[${r.instance}] ${r.status} ${r.mode}`).sort(), ['web[0] online cluster', 'web[1] online cluster'])
  const logs = await home.sup(['logs', 'web', '--nostream', '--lines', '5'])
  assert.equal(logs.code, 0, logs.stderr)
  assert.match(logs.stdout, /listening on/)
  const reload = await home.sup(['reload', 'web'])
  assert.equal(reload.code, 0, reload.stderr)
  const reloaded = await home.ls()
  assert.equal(reloaded.filter((r) => r.status === 'online').length, 2)
  assert.ok(reloaded.every((r) => !rows.some((old) => old.pid === r.pid)), 'reload replaced both workers')
  const save = await home.sup(['save'])
  assert.equal(save.code, 1)
  assert.match(save.stderr, /this daemon keeps no dump \(it is a sup-runtime/)
  assert.equal((await httpGet(port)).status, 200)

  const pids = reloaded.map((r) => /** @type {number} */ (r.pid))
  rt.child.kill('SIGTERM')
  assert.deepEqual(await rt.exit(), { code: 0, signal: null })
  await waitForExit(pids)
  assert.deepEqual(pidsRunning(home.home, 'http-server.js'), [])
  assert.match(rt.lines.err.join('\n'), /sup-runtime \| SIGTERM: stopping every app\n(.*\n)*sup-runtime \| stopped; exiting 0$/)
  assert.equal(existsSync(home.paths.socket), false)
  assert.equal(existsSync(home.paths.dump), false, 'sup-runtime writes no dump')
  assert.equal(existsSync(home.paths.state), false, 'nor a state file')
  assert.equal(existsSync(join(home.paths.logs, 'web-out-0.log')), false, 'no app log files unless --log-files')
})

test('sup-runtime --json: one JSON object per line; fork apps; forwarded signals; SIGINT exits 0', async (t) => {
  const home = useSupHome(t)
  const rt = startRuntime(t, home, ['--json', join(APPS, 'signal-logger.js'), '--name', 'sig'])
  const ready = JSON.parse(await rt.waitForLine('out', /"message":"ready"/))
  assert.deepEqual(Object.keys(ready).sort(), ['app', 'instance', 'message', 'stream', 'time'])
  assert.deepEqual({ app: ready.app, instance: ready.instance, stream: ready.stream }, { app: 'sig', instance: 0, stream: 'out' })
  assert.ok(!Number.isNaN(Date.parse(ready.time)))
  rt.child.kill('SIGUSR2')
  await rt.waitForLine('out', /"message":"got SIGUSR2"/)
  const said = JSON.parse(await rt.waitForLine('err', /passed on to 1 worker/))
  assert.deepEqual({ app: said.app, level: said.level }, { app: 'sup-runtime', level: 'info' })
  for (const line of rt.lines.out.concat(rt.lines.err)) JSON.parse(line)

  const [row] = await home.ls()
  assert.equal(row.mode, 'fork')
  rt.child.kill('SIGINT')
  assert.deepEqual(await rt.exit(), { code: 0, signal: null })
  await waitForExit([Number(row.pid)])
})

test('sup-runtime exits non-zero when an app crash-loops, and leaves nothing running', async (t) => {
  const home = useSupHome(t)
  const rt = startRuntime(t, home, [join(APPS, 'crash-on-boot.js'), '--max-restarts', '2', '--restart-delay', '10'])
  const { code } = await rt.exit()
  assert.equal(code, 1)
  assert.match(rt.lines.err.join('\n'), /crash-on-boot\[0\] errored: 3 exits in a row within min_uptime, last with code 3/)
  assert.match(rt.lines.err.join('\n'), /sup-runtime \| crash-on-boot\[0\] errored \(a crash loop\): sup-runtime stops every app and exits 1/)
  assert.match(rt.lines.err.at(-1) ?? '', /^sup-runtime \| stopped; exiting 1$/)
  assert.match(rt.lines.err.join('\n'), /crash-on-boot\[0\] \| crash-on-boot: failing on purpose/, 'its stderr, prefixed, on stderr')
  assert.deepEqual(pidsRunning(home.home, 'crash-on-boot.js'), [])
})

test('sup-runtime ends with its apps: a job that exits 0 gives 0, one that fails gives 1', async (t) => {
  const home = useSupHome(t)
  const ok = startRuntime(t, home, [join(APPS, 'crash-on-boot.js'), '--no-autorestart', '--stop-exit-codes', '3'])
  assert.equal((await ok.exit()).code, 0, ok.lines.err.join('\n'))
  const failing = startRuntime(t, home, [join(APPS, 'crash-on-boot.js'), '--no-autorestart'])
  assert.equal((await failing.exit()).code, 1)
  assert.match(failing.lines.err.join('\n'), /every app has stopped, and crash-on-boot\[0\] failed: sup-runtime exits 1/)
  const usage = startRuntime(t, home, [join(APPS, 'no-such-app.js')])
  assert.equal((await usage.exit()).code, 1)
  assert.match(usage.lines.err[0], /^sup-runtime: script ".*no-such-app\.js" not found/)
})

/** Can this machine make a PID namespace (root, or user namespaces allowed)? */
function unshareCommand () {
  for (const command of [['unshare', '--pid', '--fork', '--mount-proc'], ['unshare', '--user', '--map-root-user', '--pid', '--fork', '--mount-proc']]) {
    const probe = spawnSync(command[0], [...command.slice(1), 'true'], { stdio: 'ignore' })
    if (probe.status === 0) return command
  }
  return null
}

/**
 * The processes below `root` (its descendants), from /proc: pid, parent, state, name.
 * @param {number} root
 */
function descendantsOf (root) {
  /** @type {{ pid: number, ppid: number, state: string, comm: string }[]} */
  const all = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      const [state, ppid] = stat.slice(close + 2).split(' ')
      all.push({ pid: Number(entry), ppid: Number(ppid), state, comm: stat.slice(stat.indexOf('(') + 1, close) })
    } catch {}
  }
  const below = new Set([root])
  for (let grew = true; grew;) {
    grew = false
    for (const p of all) {
      if (!below.has(p.pid) && below.has(p.ppid)) { below.add(p.pid); grew = true }
    }
  }
  below.delete(root)
  return all.filter((p) => below.has(p.pid))
}

/**
 * Run orphaner.sh under sup-runtime as PID 1 of a PID namespace; once its 20 orphans have all
 * ended, wait for the zombie count to settle at `zombies`, then stop the runtime with SIGTERM.
 * @param {import('node:test').TestContext} t
 * @param {string[]} command the unshare command
 * @param {Record<string, string>} env
 * @param {number} zombies
 */
async function orphansUnderPid1 (t, command, env, zombies) {
  const home = useSupHome(t)
  const rt = startRuntime(t, home, [join(APPS, 'orphaner.sh')], { command, env })
  await rt.waitForLine('out', /orphaner\[0\] \| orphaned 20/)
  const tree = () => descendantsOf(/** @type {number} */ (rt.child.pid))
  await waitFor(() => tree().filter((p) => p.comm === 'sleep' && p.state !== 'Z').length === 1, { what: 'the 20 orphaned sleeps to end (only sleep 1000 left)', timeout: 15_000, show: () => JSON.stringify(tree()) })
  await waitFor(() => tree().filter((p) => p.state === 'Z').length === zombies, { what: `${zombies} zombies in the namespace`, timeout: 10_000, show: () => JSON.stringify(tree()) })
  // unshare --fork waits for its one child, the namespace's PID 1.
  const found = tree().find((p) => p.ppid === rt.child.pid)
  assert.ok(found, 'the namespace has a PID 1')
  const pid1 = { ...found, argv0: readFileSync(`/proc/${found.pid}/cmdline`, 'utf8').split('\0')[0] }
  process.kill(pid1.pid, 'SIGTERM')
  assert.equal((await rt.exit()).code, 0, rt.lines.err.join('\n'))
  assert.deepEqual(tree(), [], 'nothing left in the namespace')
  assert.deepEqual(pidsRunning(home.home, 'orphaner.sh'), [])
  return { rt, pid1 }
}

test('sup-runtime as PID 1 (a PID namespace, root or user namespaces) puts tini in front: no zombies, SIGTERM exits 0', async (t) => {
  const command = unshareCommand()
  if (!command) return t.skip('this machine cannot create a PID namespace (unshare needs root or user namespaces)')
  if (!existsSync('/usr/bin/tini')) return t.skip('tini is not installed (test/system-deps.js installs it on Debian as root)')
  const { rt, pid1 } = await orphansUnderPid1(t, command, {}, 0)
  assert.doesNotMatch(rt.lines.err.join('\n'), /running as PID 1/, 'no warning: an init reaps')
  // Node with process.execve becomes tini in place; Node 20 starts tini -s below itself.
  // (Read from the argv saved before SIGTERM: comm is "MainThread" for Node 24's main thread.)
  const execve = typeof (/** @type {{ execve?: unknown }} */ (/** @type {unknown} */ (process))).execve === 'function'
  assert.equal(execve ? basename(pid1.argv0) : pid1.argv0, execve ? 'tini' : process.execPath)
})

test('sup-runtime as PID 1 with SUP_RUNTIME_INIT=none warns, and its orphans stay zombies (what tini is for)', async (t) => {
  const command = unshareCommand()
  if (!command) return t.skip('this machine cannot create a PID namespace (unshare needs root or user namespaces)')
  const { rt, pid1 } = await orphansUnderPid1(t, command, { SUP_RUNTIME_INIT: 'none' }, 20)
  assert.match(rt.lines.err.join('\n'), /running as PID 1 \(SUP_RUNTIME_INIT=none\): processes that your apps leave behind become zombies/)
  assert.equal(pid1.argv0, process.execPath, 'the runtime itself is PID 1')
})

test('sup-runtime as PID 1 (a PID namespace) without an init (SUP_RUNTIME_INIT=none) still stops on SIGTERM and leaves nothing', async (t) => {
  const command = unshareCommand()
  if (!command) return t.skip('this machine cannot create a PID namespace (unshare needs root or user namespaces)')
  const home = useSupHome(t)
  const rt = startRuntime(t, home, [join(APPS, 'signal-logger.js')], { command, env: { SUP_RUNTIME_INIT: 'none' } })
  await rt.waitForLine('err', /running as PID 1 .*: processes that your apps leave behind become zombies/)
  await rt.waitForLine('out', /signal-logger\[0\] \| ready/)
  // unshare --fork waits for its child, the runtime: PID 1 inside, an ordinary pid outside.
  const inner = pidsRunning(home.home, RUNTIME).find((pid) => pid !== rt.child.pid)
  assert.ok(inner, 'the runtime is visible from outside the namespace')
  process.kill(inner, 'SIGTERM')
  assert.equal((await rt.exit()).code, 0)
  assert.equal(isAlive(inner), false)
  assert.deepEqual(pidsRunning(home.home, 'signal-logger.js'), [])
})
