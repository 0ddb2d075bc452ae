// @ts-check
// Spawn the daemon and wait for its first word. Kept apart from the rest of the client, with
// nothing heavy to import, so that bin/sup.cjs can start a daemon for a cold `sup ls` before
// it loads the CLI: the daemon boots on one core while the CLI loads on the other, and the
// command waits for the slower of the two instead of both (docs/benchmarks.md, cold start).
import { spawn } from 'node:child_process'
import { closeSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { readHandshake } from '../ipc/daemon-handshake.js'
import { SupError } from '../ipc/errors.js'
import { INHERITED_FDS_VAR, inheritableFds } from '../ipc/inherited-fds.js'
import { readListenFds, withListenPid, withoutListenVars } from '../ipc/listen-fds.js'
import { resolvePaths } from '../ipc/paths.js'
import { APPEND_FLAGS, ensureHome, openOwnFileSync } from '../ipc/safe-fs.js'

const DAEMON_MAIN = fileURLToPath(new URL('../daemon/main.cjs', import.meta.url))
/**
 * V8 flags for the daemon alone (its workers get their own execArgv, never these). A burst of
 * restarts grows V8's young generation to 16 MiB semi-spaces, and V8 keeps them grown: idle 45 s
 * after a 60 s crash loop a daemon was at 87 MiB, 60 MiB with 1 MiB semi-spaces, for the same
 * restarts and CPU (docs/benchmarks.md, "What was done").
 */
const DAEMON_NODE_FLAGS = ['--max-semi-space-size=1']
/** How long a daemon may take to report ready before we give up on it. */
export const START_TIMEOUT = 10_000

/**
 * `sup ls`, `list`, `status` (alone or with --json) and `jlist`: the listings scripts poll,
 * which start the daemon when none runs and need none of commander's parsing.
 * @param {string[]} argv
 * @returns {{ json: boolean } | { pm2: 'jlist' } | null}
 */
export function listingForm (argv) {
  const [verb, flag, ...rest] = argv
  if (rest.length > 0) return null
  if (['ls', 'list', 'status', 'l', 'ps'].includes(verb) && (flag === undefined || flag === '--json')) return { json: flag === '--json' }
  if (verb === 'jlist' && flag === undefined) return { pm2: 'jlist' }
  return null
}

/**
 * For a listing, start the daemon now when its socket does not even exist (so none can be
 * running). A socket file with no daemon behind it is left to connectDaemon, which finds
 * out by connecting.
 * @param {string[]} argv
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<unknown> | null} the start begun, if any, for the connection to wait on:
 *   it resolves null, or the error (a value, so never an unhandled rejection)
 */
export function prestartDaemon (argv, env) {
  if (!listingForm(argv)) return null
  const paths = resolvePaths(env)
  if (existsSync(paths.socket)) return null
  return startDaemon(paths).then(() => null, (err) => err)
}

/**
 * Spawn the daemon detached, in its own session, and wait for its word over IPC.
 * @param {import('../ipc/paths.js').SupPaths} paths
 * @param {Record<string, string>} [daemonEnv] added to our environment for the daemon
 */
export async function startDaemon (paths, daemonEnv = {}) {
  ensureHome(paths, { create: true })
  const log = openOwnFileSync(paths.daemonLog, APPEND_FLAGS)
  // Socket-activated (systemd ran this CLI, e.g. the unit's `sup ping`): the sockets are for
  // the daemon. They keep their numbers (3, 4, …; the IPC channel comes after them) and a shell
  // exec()s the daemon with LISTEN_PID set to its own pid, as systemd does after its fork.
  const activation = readListenFds(process.env, process.pid)
  const env = { ...withoutListenVars(process.env), ...daemonEnv }
  const plain = { command: process.execPath, args: [...DAEMON_NODE_FLAGS, DAEMON_MAIN] }
  const { command, args } = activation ? withListenPid(plain) : plain
  if (activation) Object.assign(env, { LISTEN_FDS: String(activation.fds.length), LISTEN_FDNAMES: activation.names.join(':') })
  // What we hold without close-on-exec, the daemon inherits: it closes what we name here.
  const strays = inheritableFds().filter((fd) => !activation?.fds.includes(fd))
  if (strays.length > 0) env[INHERITED_FDS_VAR] = strays.join(',')
  else delete env[INHERITED_FDS_VAR]
  const child = spawn(command, args, {
    detached: true,
    stdio: ['ignore', log, log, ...(activation?.fds ?? []), 'ipc'],
    cwd: paths.home,
    env
  })
  closeSync(log)
  try {
    const word = readHandshake(await waitForWord(child, paths.daemonLog))
    // Another CLI started one first: that daemon serves us.
    if (!word.ready && word.error.code !== 'SUP_ERR_DAEMON_ALREADY_RUNNING') throw word.error
  } finally {
    if (child.connected) child.disconnect()
    child.unref()
  }
}

/**
 * @param {import('node:child_process').ChildProcess} child
 * @param {string} log
 * @returns {Promise<unknown>}
 */
function waitForWord (child, log) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail('it did not report ready within 10 s'), START_TIMEOUT)
    const fail = (/** @type {string} */ reason) => {
      clearTimeout(timer)
      reject(new SupError('SUP_ERR_DAEMON_START_FAILED', { reason, log }))
    }
    child.once('message', (message) => {
      clearTimeout(timer)
      resolve(message)
    })
    child.once('error', (err) => fail(err.message))
    child.once('exit', (code, signal) => fail(`it exited with ${signal ?? `code ${code}`}`))
  })
}
