// @ts-check
// The daemon's side of the cluster primaries it runs on other nodes (./primary.cjs): one per
// node binary, started at its first cluster worker and let go once it has had none for a
// while. A worker forked there comes back as the same handle as one the daemon forks itself
// (daemon/worker/spawn.js), so the lifecycle, drain, probes, stats and logs do not know the
// difference; its pid arrives a moment later, in a 'spawned' event.
import { spawn } from 'node:child_process'
import cluster from 'node:cluster'
import { EventEmitter } from 'node:events'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'

export const PRIMARY_PATH = fileURLToPath(new URL('./primary.cjs', import.meta.url))
/** How long a primary with no workers is kept: a restart (stop, then start) reuses it. */
export const PRIMARY_LINGER_MS = 10_000

/**
 * @typedef {import('../worker/spawn.js').SpawnedWorker} SpawnedWorker
 * @typedef {{ handle: SpawnedWorker & { pid: number | undefined }, onMessage: (message: unknown) => void, stdout: PassThrough, stderr: PassThrough }} Remote
 * @typedef {{ exec: string, args: string[], execArgv: string[], cwd: string, group: string }} ForkSpec
 *   group: the app, whose workers that primary relays @socket.io/cluster-adapter's messages between
 */

/** The primaries one daemon runs, one per node binary (its effects hold one, worker/effects.js). */
export class Primaries {
  constructor () {
    /** @type {Map<string, RuntimePrimary>} node binary → its primary */
    this.byNode = new Map()
  }

  /**
   * Fork a cluster worker on another node, through that node's primary (started when needed).
   * @param {string} nodePath
   * @param {ForkSpec} spec
   * @param {Record<string, string>} env the worker's whole environment
   * @param {(events: EventEmitter, send: (message: unknown) => void) => (message: unknown) => void} messages the worker's message handler
   * @returns {SpawnedWorker}
   */
  fork (nodePath, spec, env, messages) {
    let primary = this.byNode.get(nodePath)
    if (primary === undefined) {
      primary = new RuntimePrimary(nodePath, this.byNode)
      this.byNode.set(nodePath, primary)
    }
    return primary.fork(spec, env, messages)
  }
}

class RuntimePrimary {
  /**
   * @param {string} nodePath
   * @param {Map<string, RuntimePrimary>} registry where it is listed while it runs
   */
  constructor (nodePath, registry) {
    this.nodePath = nodePath
    this.registry = registry
    /** @type {string | null} its process.version, once it said hello */
    this.version = null
    /** @type {Map<number, Remote>} */
    this.remotes = new Map()
    this.seq = 0
    /** @type {NodeJS.Timeout | null} */
    this.linger = null
    const balance = cluster.schedulingPolicy === cluster.SCHED_NONE ? 'os' : 'rr'
    // Nothing of the daemon's environment: the primary needs none, and its workers get their own.
    this.child = spawn(nodePath, [PRIMARY_PATH, balance], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'], env: {}, windowsHide: true })
    this.child.on('message', (message) => this.receive(/** @type {any} */ (message)))
    this.child.on('error', () => this.gone())
    this.child.on('disconnect', () => this.gone())
    this.child.on('exit', () => this.gone())
  }

  /**
   * @param {ForkSpec} spec
   * @param {Record<string, string>} env
   * @param {(events: EventEmitter, send: (message: unknown) => void) => (message: unknown) => void} messages
   * @returns {SpawnedWorker}
   */
  fork (spec, env, messages) {
    if (this.linger !== null) clearTimeout(this.linger)
    this.linger = null
    const w = ++this.seq
    const events = new EventEmitter()
    const stdout = new PassThrough()
    const stderr = new PassThrough()
    const send = (/** @type {unknown} */ m) => this.post({ t: 'send', w, m })
    /** @type {SpawnedWorker & { pid: number | undefined }} */
    const handle = { pid: undefined, ownGroup: false, stdout, stderr, send, events }
    this.remotes.set(w, { handle, onMessage: messages(events, send), stdout, stderr })
    if (!this.post({ t: 'fork', w, ...spec, env })) queueMicrotask(() => this.exited(w, 127, null))
    return handle
  }

  /**
   * @param {Record<string, unknown>} message
   * @returns {boolean} whether it could be sent
   */
  post (message) {
    if (!this.child.connected) return false
    this.child.send(message, undefined, {}, () => {})
    return true
  }

  /** @param {{ t: string, w: number, [key: string]: any }} message */
  receive (message) {
    if (message === null || typeof message !== 'object') return
    if (message.t === 'hello') {
      this.version = String(message.version)
      return
    }
    const remote = this.remotes.get(message.w)
    if (remote === undefined) return
    switch (message.t) {
      case 'forked':
        remote.handle.pid = Number(message.pid)
        remote.handle.events.emit('spawned', remote.handle.pid)
        break
      case 'listening': remote.handle.events.emit('listening'); break
      case 'relay-dropping': remote.handle.events.emit('relay-dropping'); break
      case 'message': remote.onMessage(message.m); break
      case 'out': remote.stdout.write(Buffer.from(String(message.d), 'base64')); break
      case 'err': remote.stderr.write(Buffer.from(String(message.d), 'base64')); break
      case 'end': (message.s === 'out' ? remote.stdout : remote.stderr).end(); break
      case 'exit': this.exited(message.w, message.code ?? null, message.signal ?? null); break
    }
  }

  /**
   * @param {number} w
   * @param {number | null} code
   * @param {string | null} signal
   */
  exited (w, code, signal) {
    const remote = this.remotes.get(w)
    if (remote === undefined) return
    this.remotes.delete(w)
    remote.handle.events.emit('exit', code, signal)
    if (this.remotes.size === 0 && this.linger === null && this.registry.get(this.nodePath) === this) {
      this.linger = setTimeout(() => this.child.connected && this.child.disconnect(), PRIMARY_LINGER_MS)
      this.linger.unref()
    }
  }

  /** The primary ended (or never started): its workers end with it. */
  gone () {
    if (this.registry.get(this.nodePath) === this) this.registry.delete(this.nodePath)
    if (this.linger !== null) clearTimeout(this.linger)
    for (const [w, remote] of [...this.remotes]) {
      remote.stdout.end()
      remote.stderr.end()
      this.exited(w, remote.handle.pid === undefined ? 127 : null, remote.handle.pid === undefined ? null : 'SIGKILL')
    }
  }
}
