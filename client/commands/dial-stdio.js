// @ts-check
// sup dial-stdio [--home dir]: join this process's stdin and stdout to the daemon's socket,
// byte for byte, until either side ends. `sup --host` runs it at the far end of ssh (as
// `docker system dial-stdio` does for docker's socket): the home and socket are checked here,
// as the user who owns them, before a byte goes through. It never starts a daemon.
import { connect } from 'node:net'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { SOCKET_NO_ACCESS, SOCKET_NOT_LISTENING, SupError } from '../../ipc/errors.js'
import { resolvePaths } from '../../ipc/paths.js'
import { ensureHome, verifySocket } from '../../ipc/safe-fs.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const own = opts.home === undefined ? paths : resolvePaths({ ...io.env, SUP_HOME: expandHome(opts.home) })
  ensureHome(own)
  const socket = await openSocket(own)
  process.stdin.pipe(socket)
  socket.pipe(process.stdout)
  await new Promise((resolve) => socket.once('close', resolve))
  // Whatever ssh still sends has nowhere to go.
  process.stdin.destroy()
  return 0
}

/** `~` and `~/x` as a shell would read them (ssh hands the word over quoted). @param {string} dir */
function expandHome (dir) {
  return dir === '~' ? homedir() : dir.startsWith('~/') ? join(homedir(), dir.slice(2)) : dir
}

/**
 * @param {import('../../ipc/paths.js').SupPaths} own
 * @returns {Promise<import('node:net').Socket>}
 */
function openSocket (own) {
  return new Promise((resolve, reject) => {
    const fail = (/** @type {NodeJS.ErrnoException} */ err) => {
      if (err instanceof SupError) return reject(err)
      if (SOCKET_NO_ACCESS.has(err.code ?? '')) return reject(new SupError('SUP_ERR_DAEMON_ACCESS_DENIED', { home: own.home }))
      if (SOCKET_NOT_LISTENING.has(err.code ?? '')) return reject(new SupError('SUP_ERR_DAEMON_UNREACHABLE', { home: own.home }))
      reject(err)
    }
    try {
      verifySocket(own.socket)
    } catch (err) {
      return fail(/** @type {NodeJS.ErrnoException} */ (err))
    }
    const socket = connect(own.socket)
    socket.once('error', fail)
    socket.once('connect', () => {
      socket.off('error', fail)
      socket.on('error', () => socket.destroy())
      resolve(socket)
    })
  })
}
