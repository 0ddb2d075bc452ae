// @ts-check
// Sockets the daemon was handed by systemd socket activation (LISTEN_FDS, fds from 3): they
// listen already, and the connections systemd queued on them while the daemon started are
// waiting there. An app whose `listen` entry matches one (by address, or by its
// FileDescriptorName) is given that socket instead of one the daemon binds
// (docs/deploy.md#socket-activation). systemd keeps its own copy open for as long as the
// .socket unit runs, so a socket an app lets go of goes back to the pool, never closed.
import fs from 'node:fs'
import net from 'node:net'
import { readListenFds } from '../../ipc/listen-fds.js'
import { fdName } from './held-sockets.js'

/**
 * @typedef {import('../../ipc/listen.js').ListenSpec} ListenSpec
 * @typedef {{ kind: 'tcp', host: string, port: number } | { kind: 'unix', path: string }} FdAddress
 *
 * @typedef {object} InheritedSocket
 * @property {number} fd
 * @property {string} name its LISTEN_FDNAMES entry ('' for none)
 * @property {FdAddress | null} address what it is bound to, null when it could not be learnt
 * @property {any} handle what holds fd in the daemon: a net.Socket that neither reads nor writes (never closed: systemd holds the socket too)
 * @property {string | null} app the app it is handed to, null while free
 */

export class InheritedSockets {
  /** @param {InheritedSocket[]} sockets */
  constructor (sockets = []) {
    this.sockets = sockets
  }

  /**
   * The sockets in `env` meant for this process (LISTEN_PID), each opened as a handle and
   * described. A descriptor that is not a stream socket (a FIFO, a datagram socket) is left
   * out and logged.
   * @param {NodeJS.ProcessEnv} env
   * @param {number} pid
   * @param {{ logger: import('pino').Logger, open?: (fd: number) => { handle: any, address: FdAddress | null } | { error: string } }} options
   */
  static fromEnv (env, pid, { logger, open = openFd }) {
    const given = readListenFds(env, pid)
    if (!given) return new InheritedSockets()
    /** @type {InheritedSocket[]} */
    const sockets = []
    given.fds.forEach((fd, i) => {
      const opened = open(fd)
      if ('error' in opened) logger.warn({ fd, name: given.names[i], reason: opened.error }, 'socket activation: descriptor left alone')
      else sockets.push({ fd, name: given.names[i], address: opened.address, handle: opened.handle, app: null })
    })
    logger.info({ sockets: sockets.map(({ fd, name, address }) => ({ fd, name, address: describeAddress(address) })) }, 'socket activation: sockets from systemd')
    return new InheritedSockets(sockets)
  }

  /**
   * A free socket for this `listen` entry: the one bound to its address, else the one named
   * like it (fdName) when exactly one free socket carries that name (a .socket unit gives every
   * socket it holds the same name).
   * @param {ListenSpec} spec
   * @param {string} app
   * @returns {InheritedSocket | null}
   */
  claim (spec, app) {
    const free = this.sockets.filter((s) => s.app === null)
    const named = free.filter((s) => s.name !== '' && s.name === fdName(spec))
    const found = free.find((s) => addressMatches(spec, s.address)) ?? (named.length === 1 ? named[0] : null)
    if (found) found.app = app
    return found ?? null
  }
}

/**
 * Does a socket bound to `address` serve this `listen` entry? A port on every interface is a
 * socket on the IPv6 or IPv4 wildcard; "localhost" is 127.0.0.1, as sup binds it.
 * @param {ListenSpec} spec
 * @param {FdAddress | null} address
 */
export function addressMatches (spec, address) {
  if (!address) return false
  if (spec.kind === 'unix' || address.kind === 'unix') return spec.kind === 'unix' && address.kind === 'unix' && spec.path === address.path
  if (address.port !== spec.port) return false
  if (spec.host === null) return address.host === '::' || address.host === '0.0.0.0'
  return (spec.host === 'localhost' ? '127.0.0.1' : spec.host) === address.host
}

/** @param {FdAddress | null} address */
function describeAddress (address) {
  if (!address) return 'unknown'
  return address.kind === 'unix' ? `unix:${address.path}` : `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`
}

/**
 * A handle on an inherited descriptor, without binding or listening (it does both already) and
 * without accepting: only the workers accept. A net.Socket that neither reads nor writes wraps
 * the descriptor and leaves it alone (a net.Server on it would accept); libuv makes it
 * non-blocking, as for every socket it opens. Never destroyed: systemd holds the socket too.
 * @param {number} fd
 * @returns {{ handle: any, address: FdAddress | null } | { error: string }}
 */
function openFd (fd) {
  let socket
  try {
    socket = new net.Socket({ fd, readable: false, writable: false })
  } catch (err) {
    // ERR_INVALID_FD_TYPE: a file, a datagram socket, anything but a stream socket or a pipe.
    return { error: `not a stream socket (${/** @type {NodeJS.ErrnoException} */ (err).code ?? String(err)})` }
  }
  const bound = socket.address()
  if ('port' in bound) return { handle: socket, address: { kind: 'tcp', host: bound.address, port: bound.port } }
  // A unix socket (Node has no getsockname for pipes), or a TCP one whose name could not be read.
  const path = unixPathOf(fd)
  return { handle: socket, address: path === null ? null : { kind: 'unix', path } }
}

/**
 * A unix socket's path, from the kernel's table of unix sockets (Node has no getsockname
 * for pipes): the line whose inode is the socket's. Linux only, as socket activation is.
 * @param {number} fd
 * @returns {string | null}
 */
export function unixPathOf (fd, table = readProcNetUnix) {
  try {
    const inode = String(fs.fstatSync(fd).ino)
    for (const line of table().split('\n').slice(1)) {
      // Num RefCount Protocol Flags Type St Inode Path
      const fields = line.trim().split(/\s+/)
      if (fields[6] === inode && fields[7]) return fields.slice(7).join(' ')
    }
  } catch {}
  return null
}

function readProcNetUnix () {
  return fs.readFileSync('/proc/net/unix', 'utf8')
}
