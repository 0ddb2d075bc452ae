// @ts-check
// Is a process still running? Both the CLI (waiting for a daemon to end) and the daemon
// (lock takeover, orphan checks) ask. kill(pid, 0) alone says yes for a zombie, and an
// exited daemon stays a zombie until its adoptive parent reaps it, which can take seconds.
import { readFileSync } from 'node:fs'

/**
 * @param {number} pid
 * @returns {boolean}
 */
export function isProcessRunning (pid) {
  try {
    process.kill(pid, 0)
  } catch (err) {
    // EPERM: it exists but belongs to someone else.
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM'
  }
  if (process.platform !== 'linux') return true
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1')
    return stat[stat.lastIndexOf(')') + 2] !== 'Z'
  } catch {
    return false
  }
}
