// @ts-check
// PM2_PID_FILE_PATH / SUP_PID_FILE: the daemon's pid also written where a PM2 user's tooling
// reads it (monitoring, a custom init script). daemon.pid stays the lock, in SUP_HOME, so a
// daemon started without the variable still finds the one that runs.
import { unlinkSync } from 'node:fs'
import { readOwnFileSync } from '../ipc/safe-fs.js'
import { writeFileAtomic } from '../ipc/own-files.js'

/**
 * Write our pid to `file`; a file that cannot be written is logged, never fatal. Written to a
 * random temp name and renamed over `file`: a symlink planted at `file` (or at a temp name) is
 * replaced, never written through, as root too (issue 19).
 * @param {string | null} file absolute
 * @param {import('pino').Logger} logger
 * @returns {Promise<() => void>} removes the file, if it still holds our pid
 */
export async function writePidCopy (file, logger) {
  if (file === null) return () => {}
  try {
    await writeFileAtomic(file, `${process.pid}\n`, { mode: 0o644, durable: false })
  } catch (err) {
    logger.warn({ err, file }, 'cannot write the pid file asked for by PM2_PID_FILE_PATH/SUP_PID_FILE')
    return () => {}
  }
  return () => {
    try {
      if (Number.parseInt(readOwnFileSync(file, 64), 10) === process.pid) unlinkSync(file)
    } catch {}
  }
}
