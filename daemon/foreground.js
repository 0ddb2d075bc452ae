// @ts-check
// sup-runtime: the daemon in the foreground, for containers. The same start-up as the detached
// daemon (daemon/daemon.js, socket included, so `sup ls`, `sup logs` and `sup reload` work
// against it) without dump.json; app lines go to stdout/stderr prefixed with the app, sup's
// own lines to stderr. SIGTERM/SIGINT stop everything gracefully and exit 0; an errored app
// (crash loop) stops everything and exits 1, so the orchestrator's restart policy takes over.
import { createRequire } from 'node:module'
import { resolvePaths } from '../ipc/paths.js'
import { APPEND_FLAGS, ensureHome, openOwnFileSync } from '../ipc/safe-fs.js'
import { toSupError } from '../ipc/errors.js'
import { openDaemon, survivePanics, version } from './daemon.js'
import { describeState, failedWhenStopped, runtimeVerdict } from './foreground-verdict.js'

/** Signals passed on to every worker; SIGTERM and SIGINT stop the runtime instead. */
const FORWARDED = /** @type {const} */ (['SIGHUP', 'SIGUSR2'])

/**
 * @typedef {object} RuntimeOptions
 * @property {import('../ipc/app-config.js').AppConfig[]} configs
 * @property {boolean} json
 * @property {NodeJS.ProcessEnv} env
 * @property {(text: string) => void} out a chunk for stdout (newline included)
 * @property {(text: string) => void} err a chunk for stderr (newline included)
 * @property {string} [noInit] as PID 1: why no init was put in front (bin/sup-runtime.js, daemon/reaper.js)
 */

/**
 * Run until stopped; resolves with the exit code once every app has stopped.
 * @param {RuntimeOptions} options
 * @returns {Promise<number>}
 */
export async function runForeground ({ configs, json, env, out, err, noInit }) {
  const say = sayer(json, err)
  const paths = resolvePaths(env)
  // The daemon's own pino log stays in daemon.log; stdout and stderr are the apps'.
  let logFd
  try {
    ensureHome(paths, { create: true })
    logFd = openOwnFileSync(paths.daemonLog, APPEND_FLAGS)
  } catch (error) {
    const supErr = toSupError(error)
    say('error', supErr.message, supErr.code)
    return 1
  }
  /** @type {typeof import('pino').default} */
  const pino = createRequire(import.meta.url)('pino')
  // Synchronous, as the detached daemon's, and its fd is never closed here: pino flushes it
  // from process.exit, and sonic-boom 4's flushSync retries a write that fails for any reason
  // (EBADF included) every 100 ms forever. A line still buffered when this closed the fd
  // hung sup-runtime at exit (CI, Node 20, once in ~200 runs; gdb: Atomics.wait in
  // sonic-boom's sleep, from flushSync, from pino's exit handler).
  const logger = pino({ base: { pid: process.pid } }, pino.destination({ fd: logFd, sync: true }))

  /** @type {(code: number) => void} */
  let finish = () => {}
  const finished = new Promise((resolve) => { finish = resolve })
  /** @type {import('./daemon.js').Daemon} */
  let daemon
  let exitCode = 0
  let stopping = false
  const stop = (/** @type {string} */ reason, /** @type {number} */ code, /** @type {string | undefined} */ errorCode = undefined) => {
    if (stopping) return
    stopping = true
    exitCode = code
    say(code === 0 ? 'info' : 'error', `${reason}: stopping every app`, errorCode)
    daemon.shutdown(reason).then(() => finish(exitCode))
  }

  try {
    daemon = await openDaemon({ env, logger, persist: false, onKill: (reason) => stop(reason, 0) })
  } catch (error) {
    const supErr = toSupError(error)
    say('error', supErr.message, supErr.code)
    return 1
  }
  survivePanics(logger)
  process.on('SIGTERM', () => stop('SIGTERM', 0))
  process.on('SIGINT', () => stop('SIGINT', 0))
  for (const signal of FORWARDED) {
    process.on(signal, () => {
      const signalled = daemon.supervisor.signal(['all'], signal)
      say('info', `${signal} passed on to ${signalled.length} worker(s)`)
    })
  }
  if (process.pid === 1) {
    say('warn', `running as PID 1 (${noInit ?? 'no init'}): processes that your apps leave behind become zombies nobody reaps (Node cannot wait for them); install tini in the image or run under an init: docker run --init (docs/deploy.md)`)
  }

  daemon.supervisor.on('log', (entry) => {
    const write = entry.stream === 'err' ? err : out
    write(json
      ? JSON.stringify({ time: new Date(entry.time).toISOString(), app: entry.app, instance: entry.instance, stream: entry.stream, message: entry.line }) + '\n'
      : `${entry.app}[${entry.instance}] | ${entry.line}\n`)
  })

  const verdict = watchApps(daemon.supervisor, configs, say, (v) => stop(v.reason, v.code, v.error?.code))
  say('info', `sup ${version} in the foreground (pid ${process.pid}, SUP_HOME ${paths.home}); starting ${configs.map((c) => `${c.name} (${c.exec_mode} x${c.instances})`).join(', ')}`)
  try {
    // In the foreground the process that ran sup-runtime is the shell that asked: its
    // environment is the apps' (the container's ENV), as `sup start`'s is.
    const shellEnv = /** @type {Record<string, string>} */ (Object.fromEntries(Object.entries(env).filter(([, value]) => typeof value === 'string')))
    await daemon.supervisor.start(configs, shellEnv)
  } catch (error) {
    const supErr = toSupError(error)
    stop(supErr.message, 1, supErr.code)
  }
  verdict.arm()
  const code = await finished
  say('info', `stopped; exiting ${code}`)
  return code
}

/**
 * Follow the workers' states: say what happens, and decide when the runtime should end.
 * @param {import('./supervisor.js').Supervisor} supervisor
 * @param {import('../ipc/app-config.js').AppConfig[]} configs
 * @param {ReturnType<typeof sayer>} say
 * @param {(verdict: import('./foreground-verdict.js').Verdict) => void} end
 */
function watchApps (supervisor, configs, say, end) {
  /** @type {Map<number, string>} */
  const previous = new Map()
  /** @type {Set<number>} */
  const failed = new Set()
  let armed = false
  let pending = false
  const check = () => {
    if (!armed || pending) return
    // Let a transition that is one of several in a row (stop, then start) settle first.
    pending = true
    setImmediate(() => {
      pending = false
      const verdict = runtimeVerdict(supervisor.list(), failed)
      if (verdict) end(verdict)
    })
  }
  supervisor.on('app.state', (row) => {
    const before = previous.get(row.id)
    if (row.status === before) return
    previous.set(row.id, row.status)
    const codes = supervisor.apps.get(row.name)?.config.stop_exit_codes ?? configs.find((c) => c.name === row.name)?.stop_exit_codes ?? []
    if (row.status === 'stopped' && failedWhenStopped(before, row, codes)) failed.add(row.id)
    if (row.status === 'starting') failed.delete(row.id)
    const line = describeState(row, Date.now())
    if (line) say(row.status === 'errored' ? 'error' : row.status === 'waiting' ? 'warn' : 'info', line)
    check()
  })
  return {
    /** Start judging: before the apps are started, "no worker runs" means nothing. */
    arm () {
      armed = true
      check()
    }
  }
}

/**
 * The runtime's own lines, on stderr: `sup-runtime | ...`, or JSON objects.
 * @param {boolean} json
 * @param {(text: string) => void} err
 */
function sayer (json, err) {
  return (/** @type {'info' | 'warn' | 'error'} */ level, /** @type {string} */ message, /** @type {string | undefined} */ code = undefined) => {
    err(json
      ? JSON.stringify({ time: new Date().toISOString(), app: 'sup-runtime', level, message, ...(code ? { code } : {}) }) + '\n'
      : `sup-runtime | ${message}\n`)
  }
}
