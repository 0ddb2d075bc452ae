// @ts-check
// One app's logs: worker stdout/stderr split into lines, written to the app's files (design
// §7), kept in a ring for `sup logs`, and emitted as 'line' for subscribers. A file that
// cannot keep up pauses the worker's stream (the pipe fills and the worker waits, as with a
// slow terminal), but never for longer than a stalled disk deserves: then lines are dropped
// and counted instead (daemon/logs/file.js). Emits 'line' for each line, and 'status' when the
// error of one of its files appears or clears.
import { EventEmitter } from 'node:events'
import { truncate } from 'node:fs/promises'
import { finished } from 'node:stream/promises'
import { setTimeout as delay } from 'node:timers/promises'
import { batchReads } from './batch-reads.js'
import { LOG_DEFAULTS, rotationFor } from './defaults.js'
import { LOG_FILE_LIMITS } from './file.js'
import { LogFiles } from './files.js'
import { formatLine } from './format.js'
import { removeRotations } from './maintenance.js'
import { DISABLED, logPathFor, logTargetsFor } from './paths.js'
import { LogRing } from './ring.js'

export { logPathFor }

/** Lines kept in memory per app, and at most this many characters of them (2000 lines of 64 KiB would be 128 MiB). */
const RING_SIZE = 2000
const RING_CHARS = 8 * 1024 * 1024
/** A line longer than this without a newline is cut, so one chatty worker cannot grow the daemon. */
const MAX_LINE = 64 * 1024
/**
 * A partial line (text without its newline yet) is written as a line of its own once its
 * stream has been quiet this long: a process that writes a prompt or `process.stderr.write('x')`
 * and then waits would otherwise show nothing in its logs until it writes a newline or exits
 * (PM2's cli-actions-2.sh). Chunks of one line under load arrive far closer together than this.
 */
export const PARTIAL_IDLE_MS = 200
/** How long close() waits for the streams of exited workers to be read to their end. */
const STREAM_END_MS = 3000
const NEWLINE = 0x0a
const NEWLINE_BUF = Buffer.from('\n')

/**
 * @typedef {{ id: number, instance: number, stream: 'out' | 'err' }} Source
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 * @typedef {{ log_error: import('./file.js').LogError | null, log_dropped_lines: number, log_dropped_bytes: number }} LogRowStatus
 */

export class LogSink extends EventEmitter {
  /**
   * @param {object} options
   * @param {import('../../ipc/app-config.js').AppConfig} options.config
   * @param {string} options.logsDir
   * @param {import('pino').Logger} options.logger
   * @param {LogFiles} [options.files] the daemon's open files, shared between apps
   * @param {import('./defaults.js').LogRotation} [options.defaults] the daemon's rotation settings
   * @param {Timers} [options.timers]
   * @param {number} [options.maxPause] longest a worker's stream stays paused for a slow file (ms)
   * @param {() => boolean} [options.linesWanted] whether anyone follows lines as they come (`sup
   *   logs` streaming, monit): the daemon asks its subscriptions (daemon.js); alone, as in tests,
   *   every line is emitted
   * @param {() => number} [options.wallNow] the wall clock that stamps lines
   */
  constructor ({ config, logsDir, logger, files, defaults = LOG_DEFAULTS, timers = globalThis, maxPause = LOG_FILE_LIMITS.stallMs, linesWanted = () => true, wallNow = Date.now }) {
    super()
    this.linesWanted = linesWanted
    this.wallNow = wallNow
    this.config = config
    this.logsDir = logsDir
    this.logger = logger
    this.files = files ?? new LogFiles({ logger })
    this.defaults = defaults
    this.rotation = rotationFor(config, defaults)
    this.timers = timers
    this.maxPause = maxPause
    this.ring = new LogRing(RING_SIZE, RING_CHARS)
    /** @type {Map<string, import('./file.js').LogFile>} the files this app holds open */
    this.opened = new Map()
    /** @type {Set<import('node:stream').Readable>} streams not yet read to their end */
    this.streams = new Set()
    /** Set by close(): the files are let go, so a partial line's timer must not reopen one. */
    this.closed = false
    /** A file's error appeared or cleared: the app's rows changed. */
    this.onFileStatus = () => this.emit('status')
  }

  /**
   * The app's config changed (a restart or reload with new settings): streams attached from
   * now on use it (file names, timestamps, rotation); those attached before keep their files.
   * @param {import('../../ipc/app-config.js').AppConfig} config
   */
  reconfigure (config) {
    this.config = config
    this.rotation = rotationFor(config, this.defaults)
  }

  /**
   * Follow one worker stream until it ends.
   * @param {import('node:stream').Readable | null} readable
   * @param {Source} source
   */
  attach (readable, source) {
    if (!readable) return
    this.streams.add(readable)
    finished(readable).catch(() => {}).finally(() => this.streams.delete(readable))
    const paths = logTargetsFor(this.config, this.logsDir, source.stream, source.instance)
    // Bytes, never decoded on the way to the files unless a line needs a timestamp or JSON:
    // what comes up to the last newline of a chunk is whole lines, the rest waits for its
    // end. A newline byte never occurs inside a UTF-8 character, so none is cut.
    /** @type {Buffer | null} */
    let partial = null
    // The idle timer is armed once per partial line, not per chunk: when it fires after more
    // chunks came, it waits again rather than cut a line that is still arriving.
    /** @type {any} */
    let idle = null
    let chunksSinceArmed = 0
    const writePartial = () => {
      if (!partial) return
      const buf = Buffer.concat([partial, NEWLINE_BUF])
      partial = null
      this.writeChunk(paths, source, buf)
    }
    const onIdle = () => {
      idle = null
      if (!partial || this.closed) return
      // Chunks came meanwhile, or we paused the stream ourselves (its files are congested,
      // hold()): the rest of the line may be waiting in the pipe, so wait again.
      if (chunksSinceArmed > 0 || readable.isPaused()) return armIdle()
      writePartial()
    }
    const armIdle = () => {
      chunksSinceArmed = 0
      idle = this.timers.setTimeout(onIdle, PARTIAL_IDLE_MS)
      idle?.unref?.()
    }
    readable.on('data', (/** @type {Buffer} */ chunk) => {
      chunksSinceArmed++
      const end = chunk.lastIndexOf(NEWLINE) + 1
      let whole = null
      if (end > 0) {
        whole = partial ? Buffer.concat([partial, chunk.subarray(0, end)]) : chunk.subarray(0, end)
        partial = end < chunk.length ? chunk.subarray(end) : null
      } else {
        partial = partial ? Buffer.concat([partial, chunk]) : chunk
      }
      if (partial && partial.length > MAX_LINE) {
        // A line this long without its end is cut here, so one worker cannot grow the daemon.
        whole = Buffer.concat(whole ? [whole, partial, NEWLINE_BUF] : [partial, NEWLINE_BUF])
        partial = null
      }
      if (partial && idle === null) armIdle()
      if (whole && !this.writeChunk(paths, source, whole)) this.hold(readable, paths)
    })
    const disarm = () => {
      if (idle !== null) this.timers.clearTimeout(idle)
      idle = null
    }
    readable.on('end', () => {
      disarm()
      writePartial()
    })
    readable.on('close', disarm)
    readable.on('error', () => {})
    batchReads(readable, { timers: this.timers })
  }

  /**
   * @param {string[]} paths
   * @param {Source} source
   * @param {Buffer} buf whole lines, each ending in "\n"
   * @returns {boolean} false when a file asks the stream to wait
   */
  writeChunk (paths, source, buf) {
    const from = { time: this.wallNow(), app: this.config.name, id: source.id, instance: source.instance, stream: source.stream }
    const { config } = this
    const plain = !config.time && !config.log_date_format && config.log_type !== 'json'
    let bytes = buf
    if (plain && !this.linesWanted()) {
      this.ring.pushLines(from, buf)
    } else {
      let text = ''
      for (const line of buf.toString('utf8', 0, buf.length - 1).split('\n')) {
        const entry = { ...from, line }
        this.ring.push(entry)
        this.emit('line', entry)
        if (!plain) text += formatLine(entry, config) + '\n'
      }
      if (!plain) bytes = Buffer.from(text)
    }
    let ok = true
    for (const path of paths) ok = this.fileFor(path, source.instance).write(bytes) && ok
    return ok
  }

  /**
   * A line of the supervisor's about one worker (an exit and what follows, a kill, a spawn
   * error: its journal event), among that worker's stdout lines in `sup logs` and in its out
   * file, as PM2 writes `App [api:2] exited with code [1]`: marked `[sup]` in the file and with
   * the stream `sup` in `sup logs`, so it is told from the app's own lines. A file written as
   * JSON gets a JSON object (stream "sup"), never a bare line among its objects.
   * @param {{ id: number, instance: number }} source
   * @param {string} text
   */
  note (source, text) {
    if (this.closed) return
    const entry = { time: Date.now(), app: this.config.name, id: source.id, instance: source.instance, stream: /** @type {const} */ ('sup'), line: text }
    this.ring.push(entry)
    this.emit('line', entry)
    const { config } = this
    const stamped = config.time || config.log_date_format || config.log_type === 'json'
    const line = config.log_type === 'json' ? formatLine(entry, config) : formatLine({ ...entry, line: `[sup] ${stamped ? '' : `${new Date(entry.time).toISOString()} `}${text}` }, config)
    const bytes = Buffer.from(line + '\n')
    for (const path of logTargetsFor(config, this.logsDir, 'out', source.instance)) this.fileFor(path, source.instance).write(bytes)
  }

  /**
   * Pause a stream until its files drain, or until maxPause has passed.
   * @param {import('node:stream').Readable} readable
   * @param {string[]} paths
   */
  hold (readable, paths) {
    if (readable.isPaused()) return
    readable.pause()
    const files = paths.map((path) => /** @type {import('./file.js').LogFile} */ (this.opened.get(path)))
    let held = true
    const release = () => {
      if (!held) return
      held = false
      this.timers.clearTimeout(timer)
      for (const file of files) file.off('drain', check)
      readable.resume()
    }
    const check = () => { if (!files.some((file) => file.congested())) release() }
    for (const file of files) file.on('drain', check)
    const timer = this.timers.setTimeout(release, this.maxPause)
  }

  /**
   * @param {string} path
   * @param {number} instance
   */
  fileFor (path, instance) {
    let file = this.opened.get(path)
    if (!file) {
      const { name } = this.config
      const formatNotice = (/** @type {string} */ text) => formatLine({ time: this.wallNow(), app: name, instance, stream: 'sup', line: text }, this.config)
      file = this.files.acquire(path, { rotation: this.rotation, formatNotice })
      file.on('status', this.onFileStatus)
      this.opened.set(path, file)
    }
    return file
  }

  /**
   * What `sup ls` shows for one instance: the first error of its files and what they dropped.
   * @param {number} instance
   * @returns {LogRowStatus}
   */
  statusFor (instance) {
    const paths = new Set([...logTargetsFor(this.config, this.logsDir, 'out', instance), ...logTargetsFor(this.config, this.logsDir, 'err', instance)])
    /** @type {LogRowStatus} */
    const status = { log_error: null, log_dropped_lines: 0, log_dropped_bytes: 0 }
    for (const path of paths) {
      const file = this.opened.get(path)?.status()
      if (!file) continue
      status.log_error ??= file.error
      status.log_dropped_lines += file.dropped_lines
      status.log_dropped_bytes += file.dropped_bytes
    }
    return status
  }

  /** Every open file's state, for `sup describe`. */
  fileStatus () {
    return [...this.opened.values()].map((file) => file.status())
  }

  /** The files of every instance that has (or would have) run. */
  paths () {
    const paths = new Set()
    for (let i = 0; i < this.config.instances; i++) {
      for (const target of /** @type {const} */ (['out', 'err', 'combined'])) paths.add(logPathFor(this.config, this.logsDir, target, i))
    }
    for (const path of this.opened.keys()) paths.add(path)
    paths.delete(DISABLED)
    return [...paths]
  }

  /** Empty the files (rotated ones are deleted) and the ring. */
  async flush () {
    this.ring.clear()
    await Promise.all(this.paths().map(async (path) => {
      const file = this.opened.get(path)
      if (file) await file.truncate()
      else await truncate(path).catch(() => {})
      await removeRotations(path)
    }))
  }

  /**
   * Let go of the files, once the streams of exited workers are read to their end (a worker's
   * last lines may still sit in the pipe when its exit is seen), bounded in time because a
   * grandchild may hold the pipe open. Resolves once what was queued is written and closed.
   */
  async close () {
    const ended = Promise.all([...this.streams].map((stream) => finished(stream).catch(() => {})))
    await Promise.race([ended, delay(STREAM_END_MS, undefined, { ref: false })])
    this.closed = true
    const paths = [...this.opened.keys()]
    for (const file of this.opened.values()) file.off('status', this.onFileStatus)
    this.opened.clear()
    await Promise.all(paths.map((path) => this.files.release(path)))
  }
}
