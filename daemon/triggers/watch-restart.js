// @ts-check
// watch: restart an app when files change under its watched paths, once things have been
// quiet for watch_delay (an editor's save or a `git checkout` is many events, one restart).
// chokidar does the watching: Node's recursive fs.watch on Linux watches every folder
// under the root, node_modules included, and cannot be told to skip any (docs/config.md#watch).
import { createRequire } from 'node:module'
import { SupError } from '../../ipc/errors.js'

// chokidar is loaded by the first watch, not with the daemon: most daemons watch nothing, and
// their start-up (which a cold CLI call waits for) and memory should not pay for it.
const require = createRequire(import.meta.url)
/** @type {WatchFn} */
const chokidarWatch = (paths, options) => /** @type {Watcher} */ (/** @type {unknown} */ (/** @type {typeof import('chokidar')} */ (require('chokidar')).watch(paths, options)))

/**
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 * @typedef {{ on: (event: string, fn: (...args: any[]) => void) => any, close: () => Promise<void> }} Watcher
 * @typedef {(paths: string[], options: { ignored: (path: string) => boolean, ignoreInitial: boolean }) => Watcher} WatchFn
 */

export class FileWatch {
  /**
   * @param {object} options
   * @param {string[]} options.paths absolute
   * @param {(path: string) => boolean} options.ignored
   * @param {number} options.delay ms of quiet before onChange
   * @param {(path: string) => void} options.onChange called once per burst, with its last path
   * @param {import('pino').Logger} options.logger
   * @param {Timers} [options.timers]
   * @param {WatchFn} [options.watch]
   */
  constructor ({ paths, ignored, delay, onChange, logger, timers = globalThis, watch = chokidarWatch }) {
    this.paths = paths
    this.delay = delay
    this.onChange = onChange
    this.logger = logger
    this.timers = timers
    this.timer = null
    /** @type {ReturnType<SupError['toJSON']> | null} */
    this.error = null
    this.ready = false
    this.closed = false
    this.watcher = watch(paths, { ignored, ignoreInitial: true })
    this.watcher.on('ready', () => { this.ready = true })
    this.watcher.on('all', (/** @type {string} */ event, /** @type {string} */ path) => this.changed(path))
    this.watcher.on('error', (/** @type {any} */ err) => this.failed(err))
  }

  /** @param {string} path */
  changed (path) {
    if (this.closed) return
    if (this.timer !== null) this.timers.clearTimeout(this.timer)
    this.timer = this.timers.setTimeout(() => {
      this.timer = null
      if (!this.closed) this.onChange(path)
    }, this.delay)
  }

  /** @param {any} err */
  failed (err) {
    const reason = err?.code === 'ENOSPC' ? 'the system\'s limit of watched folders is reached (ENOSPC)' : String(err?.message ?? err)
    const first = this.error === null
    this.error = new SupError('SUP_ERR_WATCH_FAILED', { path: err?.path ?? this.paths.join(', '), reason }).toJSON()
    if (first) this.logger.error({ err, paths: this.paths }, 'file watcher failed')
  }

  async close () {
    this.closed = true
    if (this.timer !== null) this.timers.clearTimeout(this.timer)
    this.timer = null
    await this.watcher.close()
  }
}
