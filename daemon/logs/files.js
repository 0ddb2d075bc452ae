// @ts-check
// Every open log file of the daemon, by path: two apps (or stdout and stderr) naming the same
// file share one writer, so rotation and the size count stay right. Reference-counted.
import { LogFile } from './file.js'

/**
 * @typedef {object} AcquireOptions
 * @property {import('./defaults.js').LogRotation} rotation taken from the first to open the file
 * @property {(text: string) => string} [formatNotice]
 */

export class LogFiles {
  /**
   * @param {{ logger: import('pino').Logger, now?: () => number, limits?: import('./file.js').LogFileOptions['limits'] }} options
   */
  constructor ({ logger, now = Date.now, limits }) {
    this.logger = logger
    this.now = now
    this.limits = limits
    /** @type {Map<string, { file: LogFile, refs: number }>} */
    this.open = new Map()
  }

  /**
   * The writer for `path`, opened on first use.
   * @param {string} path
   * @param {AcquireOptions} options
   */
  acquire (path, { rotation, formatNotice }) {
    let entry = this.open.get(path)
    if (!entry) {
      const file = new LogFile({ path, ...rotation, formatNotice, logger: this.logger, now: this.now, limits: this.limits })
      entry = { file, refs: 0 }
      this.open.set(path, entry)
    }
    entry.refs++
    return entry.file
  }

  /** Reopen every open file at its path (`sup reloadLogs`); resolves with their paths. */
  async reopenAll () {
    const entries = [...this.open.entries()]
    await Promise.all(entries.map(([, entry]) => entry.file.reopen()))
    return entries.map(([path]) => path)
  }

  /**
   * Let go of `path`; the last one out closes it (its queued lines written first).
   * @param {string} path
   */
  async release (path) {
    const entry = this.open.get(path)
    if (!entry) return
    entry.refs--
    if (entry.refs > 0) return
    this.open.delete(path)
    await entry.file.close()
  }
}
