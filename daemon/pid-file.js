// @ts-check
// PM2's pid_file: each worker's pid in a file of its own, `<path>-<id>.pid` (PM2's naming),
// written when a process starts and removed when it is gone, so that a tool reading it never
// finds the pid of a process that is not there.
import { rm } from 'node:fs/promises'
import { writeFileAtomic } from '../ipc/own-files.js'

/**
 * The file for one worker: `app.pid` → `app-3.pid`; a path without `.pid` gets `-3.pid`.
 * @param {string} file the app's pid_file, absolute
 * @param {number} id the worker's id
 */
export function pidFilePath (file, id) {
  return file.replace(/(-\d+)?\.pid$/, '') + `-${id}.pid`
}

/**
 * Keep a worker's pid file in step with its process.
 * @param {import('node:events').EventEmitter & { id: number }} worker emits 'state' rows, 'renumber' and 'remove'
 * @param {string} file the app's pid_file
 * @param {import('pino').Logger} logger
 */
export function trackPidFile (worker, file, logger) {
  // Named by the id at each write: a reload hands the id to the successor (it then owns the file)
  const target = () => pidFilePath(file, worker.id)
  /** @type {number | null} */
  let written = null
  // one write or removal at a time, in the order the states came
  let queue = Promise.resolve()
  /** @param {(path: string) => Promise<void>} step */
  const then = (step) => {
    const path = target()
    queue = queue.then(() => step(path)).catch((err) => logger.warn({ err, file: path }, 'pid file not updated'))
  }
  worker.on('state', (/** @type {{ pid: number | null }} */ row) => {
    if (row.pid === written) return
    written = row.pid
    const pid = row.pid
    then((path) => pid === null ? rm(path, { force: true }) : writeWhole(path, `${pid}\n`))
  })
  // A new id, a new file; the file of the old id is its new owner's (the successor in a reload)
  worker.on('renumber', () => {
    const pid = written
    if (pid !== null) then((path) => writeWhole(path, `${pid}\n`))
  })
  worker.on('remove', () => {
    written = null
    then((path) => rm(path, { force: true }))
  })
}

/**
 * Write beside the file and rename over it: a reader sees the old pid or the new, never an
 * empty file. The temp name is random and made O_EXCL | O_NOFOLLOW: the old predictable name
 * (`<file>.<daemon pid>.tmp`) let a symlink planted in a shared folder make a root daemon
 * overwrite any file (issue 19). Not fsynced: a pid file means nothing after a crash.
 * @param {string} file
 * @param {string} text
 */
function writeWhole (file, text) {
  return writeFileAtomic(file, text, { mode: 0o644, durable: false })
}
