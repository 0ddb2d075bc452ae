// @ts-check
// One daemon per SUP_HOME: daemon.pid is created exclusively and holds the owner's pid.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'
import { SupError } from '../ipc/errors.js'
import { readOwnFileSync } from '../ipc/safe-fs.js'
import { isProcessRunning } from '../ipc/process-status.js'

/**
 * Take the lock or throw SUP_ERR_DAEMON_ALREADY_RUNNING. A lock left by a dead daemon is
 * taken over.
 * @param {string} pidFile
 * @param {string} home
 * @returns {() => void} releases the lock
 */
export function acquireLock (pidFile, home) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      // 'wx' is O_CREAT | O_EXCL, which fails on a symlink at the name instead of following it.
      writeFileSync(pidFile, `${process.pid}\n`, { flag: 'wx', mode: 0o600 })
      return () => releaseLock(pidFile)
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err
    }
    const owner = readOwner(pidFile)
    if (owner !== null && owner !== process.pid && isProcessRunning(owner) && mayBeDaemon(owner)) {
      throw new SupError('SUP_ERR_DAEMON_ALREADY_RUNNING', { home, pid: owner })
    }
    // Stale: its daemon is gone (kill -9, reboot). Two starters racing over a stale lock is
    // the one case this does not settle; the socket bind that follows is the second guard.
    try { unlinkSync(pidFile) } catch {}
  }
  throw new SupError('SUP_ERR_DAEMON_ALREADY_RUNNING', { home, pid: readOwner(pidFile) ?? 'unknown' })
}

/**
 * After a reboot or a crash the recorded pid may belong to an unrelated process by now (at
 * boot often the very `sup` command that is starting the daemon). On Linux, a process whose
 * command line is not a sup daemon's does not hold the lock; where we cannot tell, it does.
 * @param {number} pid
 */
export function mayBeDaemon (pid) {
  if (process.platform !== 'linux') return true
  let argv
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')
  } catch {
    return true
  }
  return argv.some((arg) => /(^|\/)daemon\/main\.c?js$|sup-runtime(\.js)?$/.test(arg))
}

/** @param {string} pidFile */
function readOwner (pidFile) {
  try {
    // Not through a symlink: one at daemon.pid reads as no owner, and is removed (not its target).
    const pid = Number.parseInt(readOwnFileSync(pidFile, 64), 10)
    return Number.isInteger(pid) && pid > 0 ? pid : null
  } catch {
    return null
  }
}

/** @param {string} pidFile */
function releaseLock (pidFile) {
  if (readOwner(pidFile) === process.pid) {
    try { unlinkSync(pidFile) } catch {}
  }
}
