// @ts-check
// PM2_PID_FILE_PATH / SUP_PID_FILE: the daemon's pid also written where a PM2 user's tooling
// reads it (monitoring, a custom init script). daemon.pid stays the lock, in SUP_HOME, so a
// daemon started without the variable still finds the one that runs.
import { readFileSync, unlinkSync, writeFileSync } from 'node:fs'

/**
 * Write our pid to `file`; a file that cannot be written is logged, never fatal.
 * @param {string | null} file absolute
 * @param {import('pino').Logger} logger
 * @returns {() => void} removes the file, if it still holds our pid
 */
export function writePidCopy (file, logger) {
  if (file === null) return () => {}
  try {
    writeFileSync(file, `${process.pid}\n`, { mode: 0o644 })
  } catch (err) {
    logger.warn({ err, file }, 'cannot write the pid file asked for by PM2_PID_FILE_PATH/SUP_PID_FILE')
    return () => {}
  }
  return () => {
    try {
      if (Number.parseInt(readFileSync(file, 'utf8'), 10) === process.pid) unlinkSync(file)
    } catch {}
  }
}
