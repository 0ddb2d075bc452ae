// @ts-check
// Sockets the daemon binds for a fork-mode app's `listen` setting and keeps open across every
// generation of its workers, systemd socket-activation style (docs/reload.md#fork-mode):
// the kernel queues connections on them while one generation hands over to the next.
//
// The daemon must hold each socket in the LISTEN state without ever accepting on it. A Node
// server that listens also accepts (libuv polls every listening handle), so the daemon binds
// with net's handle factory (the one node:cluster's primary uses for its shared handles, which
// binds but neither listens nor polls), and a short-lived helper process, handed the socket as
// fd 3, calls listen(2) on it and exits before its event loop ever runs: the socket is then
// listening for good, and only the workers accept. The daemon waits for the helper without
// blocking its loop.
//
// The handle factory is Node's private `net._createServerHandle`, the one private API of the
// daemon, because no public one binds a socket the daemon does not accept on. Every public way
// to make a socket listens and polls it: `server.listen()` in any form (a port, a path, a
// handle), so the daemon would accept connections meant for the workers; a server sent over
// IPC (`child.send(message, server)`) is listened on where it arrives (child_process's handle
// conversion); `pauseOnConnect` and `maxConnections` act only after accept(2). A descriptor
// the daemon already has can be held publicly without being touched (`new net.Socket({ fd,
// readable: false, writable: false })`, as inherited-sockets.js does with systemd's), but no
// public API binds one, nor gives the descriptor of a socket Node made, which `stdio` needs to
// hand it to a worker as fd 3. The helper itself uses only public API (`server.listening`).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import net from 'node:net'
import { getSystemErrorName } from 'node:util'
import { SupError } from '../../ipc/errors.js'
import { parseListen } from '../../ipc/listen.js'

/** The kernel's own cap (somaxconn) applies on top; Node's default backlog. */
export const BACKLOG = 511

/**
 * listen(2) on fd 3 and exit: process.exit runs before the event loop could accept anything.
 * Node reports a failed listen on the next tick, but `server.listening` is false at once
 * (EADDRINUSE: another socket listens on that address).
 */
const LISTEN_HELPER = `const s = require('node:net').createServer().listen({ fd: 3, backlog: ${BACKLOG} })
if (s.listening) process.exit(0)
s.on('error', (err) => { process.stderr.write(String(err.code || err.message)); process.exit(1) })`

/**
 * @typedef {import('../../ipc/listen.js').ListenSpec} ListenSpec
 *
 * @typedef {object} HeldSocket
 * @property {ListenSpec} spec
 * @property {number} fd the daemon's descriptor
 * @property {any} handle the libuv handle that owns fd (closing it closes the socket)
 * @property {import('./inherited-sockets.js').InheritedSocket} [inherited] set when systemd
 *   passed the socket to the daemon: given back to the pool on close, not closed
 *
 * @typedef {object} HandOver what a worker process gets (docs/reload.md#what-the-app-gets)
 * @property {number[]} fds the daemon's descriptors, in order: they become the child's 3, 4, …
 * @property {Record<string, string>} env LISTEN_FDS and LISTEN_FDNAMES (LISTEN_PID is set by the exec wrapper)
 * @property {string} agent JSON for the node agent: which inherited fd serves which port or path
 */

/**
 * @typedef {object} BindOptions
 * @property {string} app the app's name, for messages
 * @property {(fd: number) => Promise<{ status: number | null, stderr: string }>} [listenFd] puts fd in LISTEN state (default: the helper process)
 * @property {import('./inherited-sockets.js').InheritedSockets} [inherited] sockets from
 *   systemd (socket activation): an entry they serve is taken from them instead of bound
 */

export class HeldSockets {
  /** @param {HeldSocket[]} sockets */
  constructor (sockets) {
    this.sockets = sockets
    this.closed = false
  }

  /**
   * Bind and listen on every entry of an app's `listen` setting; all or nothing.
   * @param {string[]} listen the canonical entries of AppConfig.listen
   * @param {BindOptions} options
   * @returns {Promise<HeldSockets>}
   */
  static async bind (listen, { app, listenFd = runListenHelper, inherited }) {
    const specs = parseListen(listen)
    if ('error' in specs) throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option: 'listen', value: String(specs.entry), reason: specs.error })
    const held = new HeldSockets([])
    try {
      for (const spec of specs) {
        // Already bound and listening, with what systemd queued while the daemon started.
        const adopted = inherited?.claim(spec, app)
        if (adopted) {
          held.sockets.push({ spec, fd: adopted.fd, handle: adopted.handle, inherited: adopted })
          continue
        }
        const handle = await bindOne(spec, app)
        held.sockets.push({ spec, fd: handle.fd, handle })
        const result = await listenFd(handle.fd)
        if (result.status !== 0) {
          const code = result.stderr.trim().split('\n').pop() || `the listen helper exited with ${result.status}`
          throw new SupError('SUP_ERR_LISTEN_FAILED', { address: spec.name, name: app, reason: explain(code) })
        }
      }
    } catch (err) {
      held.close()
      throw err
    }
    return held
  }

  /** @returns {HandOver} */
  handOver () {
    return {
      fds: this.sockets.map((s) => s.fd),
      env: {
        LISTEN_FDS: String(this.sockets.length),
        LISTEN_FDNAMES: this.sockets.map((s) => fdName(s.spec)).join(':')
      },
      agent: JSON.stringify(this.sockets.map((s, i) => s.spec.kind === 'unix'
        ? { fd: 3 + i, path: s.spec.path }
        : { fd: 3 + i, host: s.spec.host, port: s.spec.port }))
    }
  }

  /** Close every socket (the app is deleted); a unix socket's file goes too. Sockets from systemd go back to their pool. */
  close () {
    if (this.closed) return
    this.closed = true
    for (const { spec, handle, inherited } of this.sockets) {
      if (inherited) {
        inherited.app = null
        continue
      }
      handle.close()
      if (spec.kind === 'unix') fs.rmSync(spec.path, { force: true })
    }
  }
}

/**
 * @param {ListenSpec} spec
 * @param {string} app
 */
async function bindOne (spec, app) {
  const create = /** @type {any} */ (net)._createServerHandle
  if (spec.kind === 'unix') {
    await removeStaleSocket(spec.path, app)
    return check(create(spec.path, -1, -1, undefined, 0), spec, app)
  }
  if (spec.host === null) {
    // Every interface: IPv6 with IPv4 mapped in, as Node's own listen(port) does; IPv4 alone
    // where the system has no IPv6.
    const dual = create('::', spec.port, 6, undefined, 0)
    if (typeof dual !== 'number') return check(dual, spec, app)
    return check(create('0.0.0.0', spec.port, 4, undefined, 0), spec, app)
  }
  const host = spec.host === 'localhost' ? '127.0.0.1' : spec.host
  const family = net.isIP(host)
  if (family === 0) throw new SupError('SUP_ERR_LISTEN_FAILED', { address: spec.name, name: app, reason: 'the host must be an IP address or "localhost"' })
  return check(create(host, spec.port, family, undefined, 0), spec, app)
}

/**
 * @param {any} result a handle, or a negative errno
 * @param {ListenSpec} spec
 * @param {string} app
 */
function check (result, spec, app) {
  if (typeof result !== 'number') {
    // libuv keeps EADDRINUSE from bind(2) for the listen that follows (a "delayed error") and
    // leaves the socket unbound: an unbound socket reports port 0.
    if (spec.kind === 'tcp') {
      /** @type {{ port?: number }} */
      const address = {}
      result.getsockname(address)
      if (address.port !== spec.port) {
        result.close()
        throw new SupError('SUP_ERR_LISTEN_FAILED', { address: spec.name, name: app, reason: explain('EADDRINUSE') })
      }
    }
    return result
  }
  throw new SupError('SUP_ERR_LISTEN_FAILED', { address: spec.name, name: app, reason: explain(getSystemErrorName(result)) })
}

/** @param {string} code an errno name */
function explain (code) {
  if (code === 'EADDRINUSE') return 'the address is in use (another process listens there; stop it or pick another address)'
  if (code === 'EACCES') return 'permission denied (ports below 1024 need root or CAP_NET_BIND_SERVICE; for a unix socket, check its folder)'
  if (code === 'EADDRNOTAVAIL') return 'the host is not an address of this machine'
  return code
}

/**
 * A socket file left by a process that is gone would make bind fail with EADDRINUSE; one that
 * something still answers on is left alone (bind then says the address is in use).
 * @param {string} path
 * @param {string} app
 */
async function removeStaleSocket (path, app) {
  const stat = fs.statSync(path, { throwIfNoEntry: false })
  if (!stat) return
  if (!stat.isSocket()) throw new SupError('SUP_ERR_LISTEN_FAILED', { address: `unix:${path}`, name: app, reason: 'a file that is not a socket is in the way' })
  if (!await answers(path, STALE_PROBE_MS)) fs.rmSync(path, { force: true })
}

/** How long a unix socket file may take to answer before it counts as left behind. */
const STALE_PROBE_MS = 2000

/**
 * Whether something accepts connections on a unix socket file.
 * @param {string} path
 * @param {number} ms
 * @returns {Promise<boolean>}
 */
function answers (path, ms) {
  return new Promise((resolve) => {
    const socket = net.connect(path)
    const done = (/** @type {boolean} */ answered) => {
      clearTimeout(timer)
      socket.destroy()
      resolve(answered)
    }
    const timer = setTimeout(() => done(false), ms)
    socket.once('connect', () => done(true))
    socket.once('error', () => done(false))
  })
}

/**
 * LISTEN_FDNAMES entries cannot contain ':'; systemd allows [A-Za-z0-9_.-].
 * @param {ListenSpec} spec
 */
export function fdName (spec) {
  return spec.name.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 255)
}

/** How long the listen helper may take (a machine under load starts node slowly). */
const LISTEN_HELPER_MS = 10_000

/**
 * @param {number} fd
 * @returns {Promise<{ status: number | null, stderr: string }>}
 */
function runListenHelper (fd) {
  return new Promise((resolve) => {
    // A clean environment: no NODE_OPTIONS (a --require could run an event loop turn first),
    // no cluster variables.
    const child = spawn(process.execPath, ['-e', LISTEN_HELPER], {
      stdio: ['ignore', 'ignore', 'pipe', fd],
      env: { PATH: process.env.PATH ?? '' },
      windowsHide: true
    })
    let stderr = ''
    child.stderr?.setEncoding('utf8').on('data', (chunk) => { stderr += chunk })
    const timer = setTimeout(() => child.kill('SIGKILL'), LISTEN_HELPER_MS)
    child.once('error', (err) => {
      clearTimeout(timer)
      resolve({ status: null, stderr: String(err) })
    })
    child.once('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stderr })
    })
  })
}
