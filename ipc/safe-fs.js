// @ts-check
// SUP_HOME and sup's own files, opened as someone else may have left them (design §12). A home
// another user made, or can write, lets that user plant a state file whose apps this user's
// daemon runs, or a socket that hears this user's `sup start` with its whole environment; a
// symlink planted where sup writes makes it write through to a file of the victim's. So: the
// home must be a real directory of the effective uid that no one else may write (as ssh and
// tmux require of theirs), the socket a socket of that uid, and sup's own files are opened
// with O_NOFOLLOW, read with a size cap, and replaced through a random temp name made O_EXCL
// (own-files.js, the daemon's side). A few lstat/fstat calls, no process, and nothing loaded
// that the CLI did not load already: `sup ls` pays microseconds for them.
import { closeSync, constants, fstatSync, lstatSync, mkdirSync, openSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import { SupError } from './errors.js'

const { O_APPEND, O_CREAT, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants
/** Not defined on Windows, where sup does not run; 0 there keeps the flags valid. */
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0

/** Flags for a log sup appends to (daemon.log, an app's log file). */
export const APPEND_FLAGS = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW
/** The longest unix socket path the kernel takes: sun_path less its NUL (108 on Linux, 104 on the BSDs and macOS). */
export const SOCKET_PATH_MAX = process.platform === 'linux' ? 107 : 103

/**
 * Check SUP_HOME before anything in it is used; with `create`, make a missing home (0700, its
 * missing parents the usual way), but never adopt a directory someone else made.
 * Throws SUP_ERR_HOME_*; returns false when the home is missing and `create` is off.
 * @param {{ home: string, socket: string }} paths
 * @param {{ create?: boolean }} [options]
 * @returns {boolean} whether the home exists
 */
export function ensureHome ({ home, socket }, { create = false } = {}) {
  const length = Buffer.byteLength(socket)
  if (length > SOCKET_PATH_MAX) {
    throw new SupError('SUP_ERR_HOME_PATH_TOO_LONG', { home, socket, length, max: SOCKET_PATH_MAX, room: SOCKET_PATH_MAX - (length - Buffer.byteLength(home)) })
  }
  let stat = lstatHome(home)
  if (stat === null) {
    if (!create) return false
    makeHome(home)
    stat = lstatHome(home)
    if (stat === null) throw new SupError('SUP_ERR_HOME_NOT_WRITABLE', { home, reason: 'it vanished as it was made' })
  }
  verifyOwn(home, stat)
  return true
}

/**
 * Refuse a socket path that is not a socket of ours, before anything is sent to it. A missing
 * socket throws ENOENT, and a file of ours left where the socket was throws ENOTSOCK, as
 * connecting would: no daemon runs, one may be started (it replaces the file).
 * @param {string} socket
 */
export function verifySocket (socket) {
  const stat = lstatSync(socket)
  const uid = effectiveUid()
  if (stat.isSymbolicLink() || (uid !== null && stat.uid !== uid)) {
    throw new SupError('SUP_ERR_HOME_SOCKET_UNSAFE', { socket, what: stat.isSymbolicLink() ? 'a symbolic link' : `owned by ${userName(stat.uid)}` })
  }
  if (!stat.isSocket()) throw Object.assign(new Error(`${socket} is not a socket`), { code: 'ENOTSOCK' })
}

/**
 * Open one of sup's own files without following a symlink; anything but a regular file (a
 * FIFO planted to hang us, a device) is refused too.
 * @param {string} file
 * @param {number} flags O_* flags; O_NOFOLLOW is added
 * @param {number} [mode]
 * @returns {number} the fd
 */
export function openOwnFileSync (file, flags, mode = 0o600) {
  let fd
  try {
    fd = openSync(file, flags | O_NOFOLLOW | O_NONBLOCK, mode)
  } catch (err) {
    throw refusedLink(file, err)
  }
  const stat = fstatSync(fd)
  if (!stat.isFile()) {
    closeSync(fd)
    throw new SupError('SUP_ERR_HOME_FILE_UNSAFE', { file, what: describeType(stat) })
  }
  return fd
}

/**
 * Read one of sup's own files whole: not through a symlink, a regular file, at most `cap` bytes.
 * Errors keep their errno code (ENOENT: there is none) or are SUP_ERR_HOME_FILE_UNSAFE.
 * @param {string} file
 * @param {number} cap bytes
 * @returns {string}
 */
export function readOwnFileSync (file, cap) {
  const fd = openOwnFileSync(file, O_RDONLY)
  try {
    checkSize(file, fstatSync(fd).size, cap)
    return readFileSync(fd, 'utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * @param {string} file
 * @param {number} size
 * @param {number} cap
 */
export function checkSize (file, size, cap) {
  if (size > cap) throw new SupError('SUP_ERR_HOME_FILE_UNSAFE', { file, what: `${size} bytes, more than the ${cap} sup reads of it` })
}

/** @param {string} home */
function lstatHome (home) {
  try {
    return lstatSync(home)
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    if (code === 'ENOENT') return null
    throw new SupError('SUP_ERR_HOME_NOT_WRITABLE', { home, reason: reasonOf(err) }, { cause: err })
  }
}

/**
 * mkdir -p for the parents, then the home itself made here and now (not recursive: a home
 * that appears meanwhile is someone's, and is checked like any other).
 * @param {string} home
 */
function makeHome (home) {
  try {
    mkdirSync(dirname(home), { recursive: true })
    mkdirSync(home, { mode: 0o700 })
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EEXIST') return
    throw new SupError('SUP_ERR_HOME_NOT_WRITABLE', { home, reason: reasonOf(err) }, { cause: err })
  }
}

/**
 * @param {string} home
 * @param {import('node:fs').Stats} stat lstat of the home
 */
function verifyOwn (home, stat) {
  if (!stat.isDirectory()) throw new SupError('SUP_ERR_HOME_NOT_DIRECTORY', { home, what: describeType(stat) })
  const uid = effectiveUid()
  if (uid === null) return
  if (stat.uid !== uid) {
    const owner = userName(stat.uid)
    // Root with another user's HOME (sudo -E): running that user's saved apps as uid 0 is
    // exactly what must not happen.
    const fix = uid === 0 ? `run sup as ${owner} (sudo -u ${owner} sup …), or set SUP_HOME to a folder of root's` : `run sup as ${owner}, or set SUP_HOME to a folder of your own`
    throw new SupError('SUP_ERR_HOME_NOT_OWNED', { home, owner, user: userName(uid), fix })
  }
  if ((stat.mode & 0o022) !== 0) {
    throw new SupError('SUP_ERR_HOME_UNSAFE_MODE', { home, mode: (stat.mode & 0o7777).toString(8).padStart(4, '0') })
  }
}

/** The uid files must belong to; null where there are no uids (Windows). */
function effectiveUid () {
  return process.geteuid?.() ?? null
}

/**
 * A name for a uid in a message: /etc/passwd read only when a message needs it.
 * @param {number} uid
 */
export function userName (uid) {
  try {
    const line = readFileSync('/etc/passwd', 'utf8').split('\n').find((l) => l.split(':')[2] === String(uid))
    if (line) return line.split(':')[0]
  } catch {}
  return `uid ${uid}`
}

/** @param {import('node:fs').Stats} stat */
export function describeType (stat) {
  if (stat.isSymbolicLink()) return 'a symbolic link'
  if (stat.isDirectory()) return 'a directory'
  if (stat.isSocket()) return 'a socket'
  if (stat.isFIFO()) return 'a named pipe'
  if (stat.isFile()) return 'a regular file'
  return 'a device'
}

/**
 * ELOOP from O_NOFOLLOW means a symlink stands at the name: say so.
 * @param {string} file
 * @param {unknown} err
 */
export function refusedLink (file, err) {
  if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ELOOP') return err
  return new SupError('SUP_ERR_HOME_FILE_UNSAFE', { file, what: 'a symbolic link' }, { cause: err })
}

/** @param {unknown} err */
function reasonOf (err) {
  const { code, message } = /** @type {NodeJS.ErrnoException} */ (err)
  return code === 'EACCES' || code === 'EPERM' ? 'permission denied' : code === 'EROFS' ? 'read-only file system' : message
}
