// @ts-check
// Integration helpers: a real daemon in a temp SUP_HOME per test, the real CLI, and waits
// that end on an event (a state change, a port answering) or a deadline, never a bare sleep.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { killDaemon, readDaemonPid } from '../../client/daemon.js'
import { listDescendants, sendSignal } from '../../daemon/worker/process-tree.js'
import { resolvePaths } from '../../ipc/paths.js'
import { killEverythingOf, processesOfHome } from './procs.js'
import { removeCgroupsOf } from './cgroups.js'
import { isProcessRunning } from '../../ipc/process-status.js'
import { PROTOCOL_VERSION } from '../../ipc/methods.js'
import { connect } from '../../ipc/transport.js'
import { waitFor, waitForEvent, within } from './wait.js'

export const ROOT = fileURLToPath(new URL('../..', import.meta.url))
export const SUP_BIN = join(ROOT, 'bin', 'sup.cjs')
export const APPS = join(ROOT, 'test', 'fixtures', 'apps')

/**
 * @typedef {{ code: number, stdout: string, stderr: string }} RunResult
 */

/**
 * A fresh SUP_HOME whose daemon, workers and files are gone when the test ends, pass or fail.
 * @param {import('node:test').TestContext} t
 */
export function useSupHome (t) {
  const home = mkdtempSync(join(tmpdir(), 'sup-test-'))
  const paths = resolvePaths({ SUP_HOME: home })
  const env = { ...process.env, SUP_HOME: home, NO_COLOR: '1' }
  /** @type {Array<() => void>} */
  const beforeRemoval = []
  t.after(() => cleanUp(paths, beforeRemoval))

  /**
   * Run the CLI.
   * @param {string[]} args
   * @param {{ cwd?: string, env?: Record<string, string>, timeout?: number, input?: string }} [options]
   *   input: written to the CLI's stdin, then closed
   * @returns {Promise<RunResult>}
   */
  const sup = (args, options = {}) => new Promise((resolve) => {
    const child = execFile(process.execPath, [SUP_BIN, ...args], {
      cwd: options.cwd ?? ROOT,
      env: { ...env, ...options.env },
      timeout: options.timeout ?? 30_000
    }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stdout, stderr })
    })
    if (options.input !== undefined) child.stdin?.end(options.input)
  })

  /**
   * The rows `sup ls --json` prints: `app.list` over the socket when a daemon runs (what that
   * command sends; a CLI start-up costs ~0.2 s of CPU, and the suite lists ~170 times), else
   * the CLI itself, which starts a daemon as `sup ls` does. test/integration/cli.test.js
   * checks the command's own output.
   * @returns {Promise<import('../../ipc/methods.js').WorkerRow[]>}
   */
  const ls = async () => {
    const conn = await connectSocket(paths.socket).catch(() => null)
    if (conn) {
      try {
        return await conn.request('app.list')
      } finally {
        await conn.close()
      }
    }
    const result = await sup(['ls', '--json'])
    if (result.code !== 0) throw new Error(`sup ls failed: ${result.stderr}`)
    return JSON.parse(result.stdout)
  }

  /** Run `fn` once the daemon is down, before the home is removed (an unmount). @param {() => void} fn */
  const beforeRemove = (fn) => { beforeRemoval.push(fn) }

  return { home, paths, env, sup, ls, connect: () => connectSocket(paths.socket), beforeRemove }
}

/**
 * Stop the daemon the polite way, then make sure nothing it started survives the test.
 * @param {import('../../ipc/paths.js').SupPaths} paths
 * @param {Array<() => void>} [beforeRemoval]
 */
async function cleanUp (paths, beforeRemoval = []) {
  // daemon.pid is a number in a file, not proof: a sup-runtime that was PID 1 of a PID
  // namespace wrote 1 there, and SIGKILLing "1 and its descendants" from here once took down
  // the whole machine's process tree. Only a process that carries this home is ours.
  const recorded = readDaemonPid(paths)
  const pid = recorded && processesOfHome(paths.home).some((p) => p.pid === recorded) ? recorded : undefined
  const tree = pid ? [pid, ...(await listDescendants(pid)).map((p) => p.pid)] : []
  await stopDaemon(paths)
  for (const p of tree) sendSignal(p, 'SIGKILL')
  // Whatever else carries this home: a daemon still starting when the test ended (not yet
  // in daemon.pid, not yet on the socket) would otherwise outlive the test and put the home
  // back; one did, in a CI run.
  killEverythingOf(paths.home)
  // A daemon killed with -9 and never followed leaves its workers' cgroups (empty by now).
  await removeCgroupsOf(paths.home)
  for (const fn of beforeRemoval) fn()
  rmSync(paths.home, { recursive: true, force: true })
}

/**
 * What `sup kill` does, from here: ask the daemon to stop its apps and itself, and wait for its
 * process to end (the client's own killDaemon; the suite runs ~150 clean-ups, and a CLI
 * start-up each was a tenth of its CPU). No daemon to reach: nothing to ask (`sup kill` says
 * "no daemon running"); one that does not finish in 20 s is left to the SIGKILLs after.
 * @param {import('../../ipc/paths.js').SupPaths} paths
 */
async function stopDaemon (paths) {
  const conn = await connectSocket(paths.socket).catch(() => null)
  if (!conn) return
  const stopped = await within(killDaemon(conn, paths), { what: 'the daemon to stop', timeout: 20_000 }).then(() => true, () => false)
  if (!stopped) await conn.close().catch(() => {})
}

/**
 * A socket connection that has said hello.
 * @param {string} socketPath
 */
export async function connectSocket (socketPath) {
  const conn = await connect(socketPath)
  await conn.request('hello', { protocol: PROTOCOL_VERSION })
  return conn
}

/**
 * Resolve when the daemon reports a worker state that satisfies `predicate`; checks `ls`
 * first so a state reached before we subscribed is not missed.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {(rows: import('../../ipc/methods.js').WorkerRow[]) => boolean} predicate
 * @param {{ timeout?: number, what?: string }} [options]
 */
export async function waitForRows (home, predicate, { timeout = 15_000, what = 'the expected state' } = {}) {
  const conn = await home.connect()
  const signal = AbortSignal.timeout(timeout)
  let changes = 0
  /** @type {(() => void) | null} */
  let wake = null
  conn.on('event', () => {
    changes++
    wake?.()
  })
  try {
    await conn.request('subscribe', { topics: ['app.state'] })
    while (true) {
      const seen = changes
      const rows = await conn.request('app.list')
      if (predicate(rows)) return rows
      if (changes !== seen) continue
      await new Promise((resolve, reject) => {
        if (signal.aborted) return reject(new Error(`timed out after ${timeout} ms waiting for ${what}; last rows: ${JSON.stringify(rows)}`))
        const onAbort = () => reject(new Error(`timed out after ${timeout} ms waiting for ${what}; last rows: ${JSON.stringify(rows)}`))
        signal.addEventListener('abort', onAbort, { once: true })
        wake = () => {
          wake = null
          signal.removeEventListener('abort', onAbort)
          resolve(undefined)
        }
      })
    }
  } finally {
    await conn.close()
  }
}

/**
 * The first log line of `app` that matches `pattern`, from the daemon's ring or as it comes:
 * subscribes first, then reads the tail, so a line written between the two is in one or the
 * other.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} app
 * @param {RegExp} pattern
 * @param {{ timeout?: number, show?: () => unknown }} [options]
 * @returns {Promise<RegExpExecArray>}
 */
export async function waitForLogLine (home, app, pattern, { timeout = 10_000, show } = {}) {
  const conn = await home.connect()
  /** @type {string[]} */
  const recent = []
  const done = new AbortController()
  const live = waitForEvent(conn, 'event', {
    what: `a log line of ${app} matching ${pattern}`,
    timeout,
    signal: done.signal,
    filter: (topic, entry) => {
      if (topic !== 'log') return false
      recent.push(entry.line)
      if (recent.length > 10) recent.shift()
      return pattern.test(entry.line)
    },
    show: show ?? (() => recent.join('\n'))
  })
  live.catch(() => {})
  try {
    await conn.request('subscribe', { topics: ['log'], apps: [app] })
    const past = await conn.request('logs.tail', { target: app, lines: 50 })
    recent.push(...past.map((/** @type {any} */ e) => e.line))
    const found = past.map((/** @type {any} */ e) => pattern.exec(e.line)).find(Boolean)
    if (found) return found
    const [, entry] = await live
    return /** @type {RegExpExecArray} */ (pattern.exec(entry.line))
  } finally {
    done.abort()
    await conn.close()
  }
}

/**
 * Ports below Linux's ephemeral range (32768-60999 by default): the load clients' outgoing
 * connections take ephemeral ports by the thousand, so a listening port picked from that range
 * (as listen(0) does) can be taken by a client socket before the app binds it.
 */
const PORT_LOW = 20_000
const PORT_HIGH = 32_000

/**
 * `count` consecutive ports nobody listens on right now (for increment_var apps).
 * @param {number} [count]
 * @returns {Promise<number>} the first of them
 */
export async function freePort (count = 1) {
  for (let attempt = 0; attempt < 200; attempt++) {
    const base = PORT_LOW + Math.floor(Math.random() * (PORT_HIGH - PORT_LOW - count))
    let free = true
    for (let port = base; port < base + count && free; port++) free = await canListen(port)
    if (free) return base
  }
  throw new Error(`no ${count} consecutive free ports between ${PORT_LOW} and ${PORT_HIGH}`)
}

/**
 * @param {number} port
 * @returns {Promise<boolean>}
 */
function canListen (port) {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/**
 * One GET to 127.0.0.1 on a fresh connection.
 * @param {number} port
 * @param {string} [path]
 * @returns {Promise<{ status: number, body: string }>}
 */
export function httpGet (port, path = '/') {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, agent: false, timeout: 5000 }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('timeout', () => req.destroy(new Error('request timed out')))
    req.on('error', reject)
    req.end()
  })
}

/**
 * Is this pid alive?
 * @param {number} pid
 */
export function isAlive (pid) {
  return isProcessRunning(pid)
}

/**
 * Wait until none of `pids` is alive. The processes are not our children, so there is no
 * exit event to wait on; checks are cheap and bounded by the deadline.
 * @param {number[]} pids
 * @param {number} [timeout]
 */
export async function waitForExit (pids, timeout = 10_000) {
  await waitFor(() => !pids.some(isAlive), { what: `pids ${pids.join(', ')} to exit`, timeout, show: () => `still alive: ${pids.filter(isAlive).join(', ')}` })
}
