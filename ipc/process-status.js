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
  let status
  try {
    status = readFileSync(`/proc/${pid}/status`, 'latin1')
  } catch {
    return false
  }
  if (/^State:\s*Z/m.exec(status) === null) return true
  // A zombie main thread is not yet a dead process: after a SIGKILL, the main thread of a
  // multi-threaded one (node: V8's and libuv's threads) is a zombie within a millisecond, while
  // its last thread frees the memory and only then closes the files: 40-60 ms for a 300 MB heap
  // (docs/reliability.md). Until then its listening socket takes connections and resets them.
  return Number(/^Threads:\s*(\d+)/m.exec(status)?.[1] ?? 1) > 1
}
