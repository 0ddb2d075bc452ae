// @ts-check
// Start one worker process, in cluster mode (the daemon is the node:cluster primary and the
// user's script is the worker's real entry point) or fork mode (child_process.spawn, argv as
// an array, never a shell). Both come back as the same small handle.
import { execFile, spawn } from 'node:child_process'
import { closeSync } from 'node:fs'
import { access, constants } from 'node:fs/promises'
import cluster from 'node:cluster'
import { EventEmitter } from 'node:events'
import { fileURLToPath } from 'node:url'
import { APP_MESSAGES, dispatch, toAgent, workerActOf } from '../../ipc/agent-protocol.js'
import { withListenPid } from '../../ipc/listen-fds.js'
import { envFor, resolveRunAs } from './run-as.js'
import { openGate, withGate } from './gate.js'
import { routesConnections } from '../balance/router.js'
import { SupError } from '../../ipc/errors.js'

export const AGENT_PATH = fileURLToPath(new URL('../agent/agent.cjs', import.meta.url))
export const GATE_PATH = fileURLToPath(new URL('../agent/gate.cjs', import.meta.url))

/**
 * @typedef {object} SpawnedWorker
 * @property {number | undefined} pid
 * @property {boolean} ownGroup true when the worker leads its own process group
 * @property {import('node:stream').Readable | null} stdout
 * @property {import('node:stream').Readable | null} stderr
 * @property {(message: unknown) => void} send
 * @property {EventEmitter} events 'exit' (code, signal), 'listening', 'ready', 'drained', 'lingering' (connections: its drain has
 *   left only long-lived ones), 'metrics' (agent report), 'message' (msg), 'relay-dropping' (the first
 *   message of socket.io's cluster adapter dropped for it: daemon/relay/adapter-relay.cjs),
 *   and 'spawned' (pid) when pid was not known at once (a cluster worker on another node, forked by its primary)
 * @property {import('../cgroups/cgroups.js').Leaf | null} [cgroup] its cgroup, once it is in one (worker/effects.js)
 * @property {() => void} [release] let a gated process go on (it waits until it is in its cgroup)
 */

/**
 * Node workers get the agent (--require), and with it the IPC channel it reports over.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 */
export function usesAgent (config) {
  return config.exec_mode === 'cluster' || config.interpreter === null
}

/**
 * The worker's environment: the caller's shell, then the app's own env, then its `sup set`
 * values, then the instance variables.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} shellEnv
 * @param {number} instance
 * @param {Record<string, string>} [settings] the app's `sup set` values (daemon/settings.js)
 * @returns {Record<string, string>}
 */
export function buildWorkerEnv (config, shellEnv, instance, settings = {}) {
  const env = { ...shellEnv, ...config.env, ...settings, [config.instance_var]: String(instance) }
  if (config.increment_var) {
    const base = Number(env[config.increment_var])
    if (Number.isFinite(base)) env[config.increment_var] = String(base + instance)
  }
  return env
}

/**
 * Node's cluster.fork() lays the env it is given over the primary's own process.env
 * (lib/internal/cluster/primary.js: `{ ...process.env, ...env, NODE_UNIQUE_ID }`). The daemon's
 * variables must not reach a worker, so each of them that the worker's env lacks is given as
 * undefined, which child_process leaves out of the new process's environment.
 * @param {Record<string, string>} env
 * @returns {Record<string, string | undefined>}
 */
export function replacingEnv (env) {
  /** @type {Record<string, string | undefined>} */
  const masked = {}
  for (const key of Object.keys(process.env)) masked[key] = undefined
  return Object.assign(masked, env)
}

/**
 * @typedef {object} SpawnContext what spawning keeps for the daemon that owns it
 * @property {import('../node-runtime/primaries.js').Primaries} primaries the daemon's primaries on other nodes
 * @property {ParentDeathSignal} parentDeath
 * @property {import('../balance/router.js').Router} router the daemon's router (sticky, least-conn apps)
 * @property {import('../logs/log-pipe.js').LogPipes} [pipes] makes the workers' stdout and stderr pipes (none: socket pairs)
 * @property {import('../relay/adapter-relay.cjs').AdapterRelay} relay @socket.io/cluster-adapter's messages between an app's workers
 */

/**
 * @param {SpawnContext} context
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env the worker's whole environment (nothing is added from the daemon's)
 * @param {import('../sockets/held-sockets.js').HandOver | null} [sockets] the app's held sockets (fork mode, `listen`)
 * @param {import('../node-runtime/resolve.js').Runtime | null} [runtime] the program it runs on (null: the daemon's node, or the interpreter as named)
 * @param {boolean} [gated] the process waits for release() before it runs the command (fork mode: gate.js;
 *   cluster mode: agent/gate.cjs; a worker on another node's primary is not gated)
 * @returns {SpawnedWorker}
 */
export function spawnWorker ({ primaries, parentDeath, router, relay, pipes }, config, env, sockets = null, runtime = null, gated = false) {
  // Another user (uid/gid): refused here too, for a config that never went through app.start.
  const runAs = resolveRunAs(config)
  const ids = runAs ? { uid: runAs.uid, gid: runAs.gid } : {}
  const workerEnv = runAs ? envFor(env, runAs, config.env) : env
  if (config.exec_mode !== 'cluster') return withPipes(pipes, (output) => spawnForkWorker(config, workerEnv, sockets, runtime, ids, parentDeath, gated, output))
  if (runtime === null || runtime.own) return withPipes(pipes, (output) => forkClusterWorker(config, workerEnv, ids, router, relay, gated, output))
  // The router lives in the daemon, and Node's cluster on the other node hands out connections itself.
  if (routesConnections(config)) throw new SupError('SUP_ERR_CONFIG_ROUTING_RUNTIME', { name: config.name, runtime: runtime.path, daemon: process.execPath })
  // Another node: its own primary forks the worker (daemon/node-runtime/primary.cjs), and
  // relays the adapter's messages between the workers of the app (group) itself.
  const spec = { exec: config.script, args: config.args, execArgv: [...config.interpreter_args, '--require', AGENT_PATH], cwd: config.cwd, group: config.name, ...ids }
  return primaries.fork(runtime.path, spec, workerEnv, clusterWorkerMessages)
}

/**
 * The worker's stdout and stderr: pipes when they can be made (logs/log-pipe.js), given to the
 * spawn as fds; the daemon's copies of the write ends are closed once it has run, and the
 * read ends too if it threw.
 * @param {import('../logs/log-pipe.js').LogPipes | undefined} pipes
 * @param {(output: import('../logs/log-pipe.js').LogPipePair | null) => SpawnedWorker} start
 * @returns {SpawnedWorker}
 */
function withPipes (pipes, start) {
  const output = pipes?.take() ?? null
  try {
    return start(output)
  } catch (error) {
    output?.out.readable.destroy()
    output?.err.readable.destroy()
    throw error
  } finally {
    if (output) {
      closeSync(output.out.write)
      closeSync(output.err.write)
    }
  }
}

/**
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 * @param {{ uid?: number, gid?: number }} ids another user's (uid/gid), or none
 * @param {import('../balance/router.js').Router} router
 * @param {import('../relay/adapter-relay.cjs').AdapterRelay} relay
 * @param {boolean} gated it waits in agent/gate.cjs for release()
 * @param {import('../logs/log-pipe.js').LogPipePair | null} output its stdout and stderr pipes (null: socket pairs)
 * @returns {SpawnedWorker}
 */
function forkClusterWorker (config, env, ids, router, relay, gated, output) {
  const routed = routesConnections(config)
  cluster.setupPrimary({
    exec: config.script,
    args: config.args,
    // The gate first: nothing of the app runs before the worker is in its cgroup (agent/gate.cjs).
    execArgv: [...(gated ? ['--require', GATE_PATH] : []), ...config.interpreter_args, '--require', AGENT_PATH],
    cwd: config.cwd,
    silent: true,
    // Always given: cluster keeps the last fork's settings, fds included.
    stdio: ['pipe', output?.out.write ?? 'pipe', output?.err.write ?? 'pipe', 'ipc'],
    ...ids
  })
  const marks = { ...(routed ? { SUP_AGENT_ROUTE: config.sticky ? 'sticky' : 'least-conn' } : {}), ...(gated ? { SUP_CGROUP_GATE: '1' } : {}) }
  const worker = cluster.fork(replacingEnv({ ...env, ...marks }))
  const events = new EventEmitter()
  const send = (/** @type {unknown} */ message) => { if (worker.isConnected()) worker.send(/** @type {any} */ (message), undefined, () => {}) }
  const route = routed
    ? router.join(config, {
      id: worker.id,
      send: (message, handle, onError) => {
        if (!worker.isConnected()) return onError(new Error('the worker\'s channel is closed'))
        worker.send(/** @type {any} */ (message), /** @type {any} */ (handle), (/** @type {Error | null} */ err) => onError(err ?? null))
      }
    })
    : null
  const member = relay.join(config.name, {
    send: (message, done) => worker.send(/** @type {any} */ (message), undefined, done),
    connected: () => worker.isConnected(),
    dropping: () => events.emit('relay-dropping')
  })
  const onMessage = clusterWorkerMessages(events, send, route ?? {})
  worker.on('listening', () => events.emit('listening'))
  worker.on('message', (message) => { if (!relay.receive(member, message)) onMessage(message) })
  if (route) worker.on('disconnect', route.leave)
  worker.on('exit', (code, signal) => {
    route?.leave()
    relay.leave(member)
    events.emit('exit', code, signal)
  })
  // A worker whose IPC channel breaks is still watched through its 'exit'.
  worker.on('error', () => {})
  // A fork that failed has no 'exit' to come.
  if (worker.process.pid === undefined) relay.leave(member)
  return {
    pid: worker.process.pid,
    ownGroup: false,
    stdout: output?.out.readable ?? worker.process.stdout,
    stderr: output?.err.readable ?? worker.process.stderr,
    send,
    events,
    ...(gated ? { release: () => openGate(worker.process.stdin) } : {})
  }
}

/**
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 * @param {import('../sockets/held-sockets.js').HandOver | null} sockets
 * @param {import('../node-runtime/resolve.js').Runtime | null} runtime
 * @param {{ uid?: number, gid?: number }} ids another user's (uid/gid), or none
 * @param {ParentDeathSignal} parentDeath
 * @param {boolean} gated
 * @param {import('../logs/log-pipe.js').LogPipePair | null} output its stdout and stderr pipes (null: socket pairs)
 * @returns {SpawnedWorker}
 */
function spawnForkWorker (config, env, sockets, runtime, ids, parentDeath, gated, output) {
  const plain = buildCommand(config, runtime)
  const wrapped = parentDeath.wrap(sockets ? withListenPid(plain) : plain)
  const { command, args, node } = gated ? withGate(wrapped, env) : wrapped
  // Held sockets become the child's fds 3, 4, … as systemd passes them; the IPC channel
  // (node workers) comes after them, wherever NODE_CHANNEL_FD says.
  const inherited = sockets ? sockets.fds : []
  const listenEnv = sockets ? { ...sockets.env, ...(node ? { SUP_LISTEN: sockets.agent } : {}) } : {}
  const child = spawn(command, args, {
    cwd: config.cwd,
    env: { ...env, ...listenEnv },
    stdio: [gated ? 'pipe' : 'ignore', output?.out.write ?? 'pipe', output?.err.write ?? 'pipe', ...inherited, ...(node ? /** @type {const} */ (['ipc']) : [])],
    // Its own process group, so the whole tree can be signalled at once.
    detached: true,
    ...ids,
    windowsHide: true
  })
  const events = new EventEmitter()
  let exited = false
  /** @param {number | null} code @param {string | null} signal @param {Error} [error] why it never started */
  const onExit = (code, signal, error) => {
    if (exited) return
    exited = true
    events.emit('exit', code, signal, error)
  }
  child.on('exit', onExit)
  // spawn failures (ENOENT, EACCES, E2BIG) come as 'error' without an 'exit'.
  child.on('error', (err) => { if (child.pid === undefined) queueMicrotask(() => onExit(127, null, err)) })
  // Fork mode: nothing is handed over through the daemon, so drained is final (no 'sync').
  child.on('message', workerMessages(events, { drained: () => events.emit('drained'), lingering: (message) => events.emit('lingering', lingeringCount(message)) }))
  return {
    pid: child.pid,
    ownGroup: true,
    stdout: output?.out.readable ?? child.stdout,
    stderr: output?.err.readable ?? child.stderr,
    send: (message) => { if (child.connected) child.send(/** @type {any} */ (message), undefined, {}, () => {}) },
    events,
    ...(gated ? { release: () => openGate(child.stdin) } : {})
  }
}

/**
 * argv for a fork-mode worker.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {import('../node-runtime/resolve.js').Runtime | null} [runtime] where the node (or bun, deno) was found
 */
export function buildCommand (config, runtime = null) {
  if (config.interpreter === null) {
    return { command: runtime?.path ?? process.execPath, args: [...config.interpreter_args, '--require', AGENT_PATH, config.script, ...config.args], node: true }
  }
  if (config.interpreter === 'none') return { command: config.script, args: config.args, node: false }
  return { command: runtime?.path ?? config.interpreter, args: [...config.interpreter_args, config.script, ...config.args], node: false }
}

// The exec wrapper that sets LISTEN_PID is shared with the CLI, which starts a socket-activated daemon the same way.
export { LISTEN_PID_SHELL, withListenPid } from '../../ipc/listen-fds.js'

/**
 * A fork-mode worker must not outlive a daemon that dies without stopping it (kill -9, OOM):
 * on Linux, util-linux's `setpriv --pdeathsig` asks the kernel to send it SIGTERM when the
 * daemon's thread that spawned it ends, then exec()s the real command, so the worker keeps the
 * same pid and nothing stays in between. Node cannot call prctl(PR_SET_PDEATHSIG) itself.
 * Where setpriv is missing, the next daemon still stops the orphan (daemon/dump/reap-previous.js).
 * One per daemon (daemon/worker/effects.js): it looks for setpriv once, in the background, and
 * every config that enters the daemon waits for that (`ready`, in Effects.prepare) before its
 * first spawn.
 */
export class ParentDeathSignal {
  /** null: not known yet; false: not available. @type {string | false | null} */
  #setpriv = null
  /** @type {Promise<void> | null} */
  #looking = null

  /** Resolves once it is known whether setpriv is there (looked for at the first call). */
  ready () {
    this.#looking ??= findSetpriv().then((found) => { this.#setpriv = found })
    return this.#looking
  }

  /**
   * @param {{ command: string, args: string[], node: boolean }} cmd
   */
  wrap (cmd) {
    if (!this.#setpriv) return cmd
    return { ...cmd, command: this.#setpriv, args: ['--pdeathsig', 'TERM', '--', cmd.command, ...cmd.args] }
  }
}

/** @returns {Promise<string | false>} */
async function findSetpriv () {
  if (process.platform !== 'linux') return false
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    const path = `${dir}/setpriv`
    try {
      await access(path, constants.X_OK)
    } catch {
      continue
    }
    // --pdeathsig came with util-linux 2.33 (2018); an older setpriv would refuse to run anything.
    const help = await new Promise((resolve) => {
      execFile(path, ['--help'], { encoding: 'utf8', timeout: 2000 }, (_err, stdout) => resolve(stdout ?? '')).stdin?.end()
    })
    return help.includes('--pdeathsig') ? path : false
  }
  return false
}

/**
 * A cluster worker's messages: a fork-mode worker's, the drain handshake, and a routed app's
 * listens and connections (daemon/balance/router.js).
 * @param {EventEmitter} events
 * @param {(message: unknown) => void} send to the worker
 * @param {import('../../ipc/agent-protocol.cjs').WorkerHandlers} [routed] the router's handlers for this worker
 */
export function clusterWorkerMessages (events, send, routed = {}) {
  let connections = 0
  return workerMessages(events, {
    ...routed,
    // The agent has closed its servers and its connections are gone. Connections we handed
    // it before we saw its servers close may still be on their way: our 'sync' travels
    // behind them, and its answer behind the agent's replies to them, so once 'synced' is
    // back every one of them has been served or handed to another worker.
    drained: () => send(toAgent('sync')),
    // The same before the app is told to go with only long-lived connections left.
    lingering: (message) => {
      connections = lingeringCount(message)
      send(toAgent('sync', { after: 'lingering' }))
    },
    synced: (message) => {
      if (message.after === 'lingering') events.emit('lingering', connections)
      else events.emit('drained')
    }
  })
}

/**
 * How many long-lived connections a worker's agent says its drain has left: a count, and at
 * least one (the report says there are some), whatever the message holds.
 * @param {Record<string, unknown>} message
 */
export function lingeringCount (message) {
  const n = Number(message.connections)
  return Number.isSafeInteger(n) && n > 0 ? n : 1
}

/**
 * A worker's message handler: sup's messages (ipc/agent-protocol.cjs) sorted into the events
 * the lifecycle cares about, through a table keyed on the act; anything else is the app's own.
 * @param {EventEmitter} events
 * @param {import('../../ipc/agent-protocol.cjs').WorkerHandlers} [more] handlers of this mode only
 * @returns {(message: unknown) => void}
 */
export function workerMessages (events, more = {}) {
  /** @type {import('../../ipc/agent-protocol.cjs').WorkerHandlers} */
  const handlers = {
    [APP_MESSAGES.ready]: () => events.emit('ready'),
    listening: () => events.emit('listening'),
    metrics: (message) => events.emit('metrics', message),
    probed: (message) => events.emit('probed', message),
    ...more
  }
  return (message) => {
    if (!dispatch(handlers, workerActOf(message), message)) events.emit('message', message)
  }
}
