// @ts-check
// One log file on disk. Whole lines go in; it appends them, rotates by size (rename, then
// reopen: never copy-truncate, so no line is lost or torn), and hands rotated files to
// gzip/retention off the write path. A slow or broken disk never blocks the daemon or grows
// its memory: the queue is bounded, and what does not fit is counted and noted in the file.
// Emits 'drain' when writers may go on, and 'status' when the file's error appears or clears.
import { EventEmitter } from 'node:events'
import { mkdir, open, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { SupError } from '../../ipc/errors.js'
import { APPEND_FLAGS } from '../../ipc/safe-fs.js'
import { gzipFile, pruneRotations } from './maintenance.js'
import { LineQueue } from './queue.js'
import { formatStamp, rotatedPath } from './rotation.js'

export const LOG_FILE_LIMITS = Object.freeze({
  /** Queued bytes past which writers are asked to wait (write() returns false). */
  highWater: 256 * 1024,
  /** Queued bytes past which lines are dropped. */
  maxQueued: 1024 * 1024,
  /** A write pending this long means the disk is stuck: writers are no longer asked to wait. */
  stallMs: 2000,
  /** After a failure, how long before the file is tried again. */
  retryMs: 5000,
  /** How long close() waits for queued lines to reach the disk. */
  closeMs: 5000
})

/** Plain words for the errno values users meet. */
const REASONS = /** @type {Record<string, string>} */ ({
  ENOTDIR: 'a parent of that path is a file, not a folder',
  // Only mkdir of the parent folders meets it: a file stands where a folder should be.
  EEXIST: 'a parent of that path is a file, not a folder',
  EISDIR: 'that path is a folder',
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the disk',
  EDQUOT: 'disk quota exceeded'
})

/** @param {any} err */
const reasonOf = (err) => REASONS[err?.code] ? `${REASONS[err.code]} (${err.code})` : String(err?.message ?? err)

/**
 * @typedef {object} LogFileOptions
 * @property {string} path
 * @property {number} maxSize bytes; 0 never rotates
 * @property {number} retain rotated files kept
 * @property {boolean} compress gzip rotated files
 * @property {import('pino').Logger} logger
 * @property {() => number} [now]
 * @property {(text: string) => string} [formatNotice] how a note from sup is written (JSON apps get JSON)
 * @property {Partial<typeof LOG_FILE_LIMITS>} [limits]
 *
 * @typedef {{ code: string, message: string, details: Record<string, unknown> }} LogError
 * @typedef {{ path: string, size: number, rotations: number, dropped_lines: number, dropped_bytes: number, error: LogError | null }} LogFileStatus
 */

export class LogFile extends EventEmitter {
  /** @param {LogFileOptions} options */
  constructor ({ path, maxSize, retain, compress, logger, now = Date.now, formatNotice, limits = {} }) {
    super()
    this.path = path
    this.maxSize = maxSize
    this.retain = retain
    this.compress = compress
    this.logger = logger
    this.now = now
    this.limits = { ...LOG_FILE_LIMITS, ...limits }
    this.queue = new LineQueue({ maxQueued: this.limits.maxQueued, formatNotice })
    /** @type {import('node:fs/promises').FileHandle | null} */
    this.handle = null
    this.size = 0
    this.rotations = 0
    /** @type {LogError | null} the file cannot be opened or written: lines are dropped until retryAt */
    this.error = null
    this.retryAt = 0
    /** @type {LogError | null} a rename failed: the file grows past the limit until one works */
    this.rotateError = null
    this.rotateRetryAt = 0
    /** @type {number | null} when the write in progress began */
    this.writingSince = null
    /** Bytes of the write in progress: they count toward maxQueued until written. */
    this.writing = 0
    /** @type {Promise<void> | null} */
    this.pumping = null
    /** @type {Array<() => void>} */
    this.truncateWaiters = []
    /** @type {Array<() => void>} `sup reloadLogs` calls waiting for the file to be reopened */
    this.reopenWaiters = []
    this.needDrain = false
    this.torn = false
    this.closed = false
    this.lastRotation = { stamp: '', seq: 0 }
    /** Compression and retention, one after another, off the write path. */
    this.background = Promise.resolve()
  }

  /**
   * Queue whole lines (each ending in "\n"). A Buffer is queued as it is, not copied: it
   * must not change afterwards.
   * @param {string | Buffer} text
   * @returns {boolean} false when the writer should pause until 'drain'
   */
  write (text) {
    if (this.closed) return true
    const buf = typeof text === 'string' ? Buffer.from(text) : text
    if (this.error && !this.handle && this.now() < this.retryAt) this.queue.drop(buf, this.error.message)
    else if (this.queue.push(buf, `the disk did not keep up (more than ${this.limits.maxQueued} bytes were waiting)`, this.writing)) this.kick()
    if (!this.congested()) return true
    this.needDrain = true
    return false
  }

  /** Too much is waiting and the disk still makes progress: worth waiting for. */
  congested () {
    return this.queue.queued >= this.limits.highWater && !this.stalled()
  }

  stalled () {
    return this.writingSince !== null && this.now() - this.writingSince >= this.limits.stallMs
  }

  kick () {
    if (this.pumping) return
    this.pumping = this.pump().finally(() => {
      this.pumping = null
      if (!this.closed && (this.truncateWaiters.length > 0 || this.reopenWaiters.length > 0 || this.queue.hasLines())) this.kick()
    })
  }

  async pump () {
    while (!this.queue.empty || this.truncateWaiters.length > 0 || this.reopenWaiters.length > 0) {
      const reopening = this.reopenWaiters.splice(0)
      if (reopening.length > 0) await this.closeHandle()
      if (!(await this.ensureOpen())) {
        this.queue.dropAll(/** @type {LogError} */ (this.error).message)
        for (const resolve of this.truncateWaiters.splice(0)) resolve()
        for (const resolve of reopening) resolve()
        return this.emitDrain()
      }
      if (reopening.length > 0) for (const resolve of reopening) resolve()
      else if (this.truncateWaiters.length > 0) await this.truncateNow()
      else await this.writeBatch(await this.nextBatch())
    }
  }

  async ensureOpen () {
    if (this.handle) return true
    if (this.error && this.now() < this.retryAt) return false
    let handle
    try {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 })
      // O_NOFOLLOW: a symlink planted at a log's path is refused, not written through (issue 19).
      handle = await open(this.path, APPEND_FLAGS, 0o600)
      this.size = (await handle.stat()).size
      this.handle = handle
    } catch (err) {
      await handle?.close().catch(() => {})
      this.fail(err)
      return false
    }
    if (this.error) {
      this.logger.info({ path: this.path }, 'log file writable again')
      this.error = null
      this.emit('status')
    }
    return true
  }

  /** @param {any} err */
  fail (err) {
    const code = err?.code === 'ENOSPC' || err?.code === 'EDQUOT' ? 'SUP_ERR_LOG_DISK_FULL' : 'SUP_ERR_LOG_UNWRITABLE'
    const changed = this.error?.code !== code
    if (changed) this.logger.error({ err, path: this.path }, 'cannot write log file')
    this.error = new SupError(code, { path: this.path, reason: reasonOf(err) }).toJSON()
    if (changed) this.emit('status')
    this.retryAt = this.now() + this.limits.retryMs
    const handle = this.handle
    this.handle = null
    handle?.close().catch(() => {})
  }

  /** The next whole lines that fit before the size limit; rotates first when none do. */
  async nextBatch () {
    let batch = this.take()
    if (batch.length === 0) {
      await this.rotate()
      if (this.handle) batch = this.take()
    }
    return batch
  }

  take () {
    const rotating = this.maxSize > 0 && (!this.rotateError || this.now() >= this.rotateRetryAt)
    return this.queue.takeParts(rotating ? this.maxSize - this.size : Infinity, this.size === 0)
  }

  /** Rename the full file aside and open a fresh one. */
  async rotate () {
    const time = this.now()
    const stamp = formatStamp(time)
    const seq = stamp === this.lastRotation.stamp ? this.lastRotation.seq + 1 : 0
    this.lastRotation = { stamp, seq }
    const target = rotatedPath(this.path, time, seq)
    try {
      await rename(this.path, target)
      if (this.rotateError) {
        this.rotateError = null
        this.emit('status')
      }
    } catch (err) {
      // Gone already (deleted by hand): a fresh file is all we need. Otherwise keep writing
      // to the full file (growing past the limit beats losing lines) and try again later.
      if (/** @type {any} */ (err).code !== 'ENOENT') {
        const first = !this.rotateError
        if (first) this.logger.error({ err, path: this.path }, 'cannot rotate log file')
        this.rotateError = new SupError('SUP_ERR_LOG_ROTATE_FAILED', { path: this.path, reason: reasonOf(err) }).toJSON()
        this.rotateRetryAt = this.now() + this.limits.retryMs
        if (first) this.emit('status')
        return
      }
    }
    const handle = this.handle
    this.handle = null
    this.size = 0
    await handle?.close().catch(() => {})
    this.rotations++
    this.afterRotation(target)
    await this.ensureOpen()
  }

  /** @param {string} rotated */
  afterRotation (rotated) {
    const { compress, retain, path, logger } = this
    this.background = this.background.then(async () => {
      if (compress) await gzipFile(rotated).catch((err) => logger.warn({ err, file: rotated }, 'cannot compress a rotated log file'))
      await pruneRotations(path, retain).catch((err) => logger.warn({ err, path }, 'cannot delete old rotated log files'))
    })
  }

  /**
   * Write the pieces of a batch with writev: one system call, never copied together.
   * @param {Buffer[]} batch
   */
  async writeBatch (batch) {
    const handle = this.handle
    if (!handle || batch.length === 0) return
    let data = this.torn ? [Buffer.from('\n'), ...batch] : batch
    this.torn = false
    this.writingSince = this.now()
    this.writing = data.reduce((n, part) => n + part.length, 0)
    let lastWritten = -1
    try {
      while (data.length > 0) {
        const { bytesWritten } = await handle.writev(data)
        if (bytesWritten > 0) lastWritten = byteAt(data, bytesWritten - 1)
        this.size += bytesWritten
        data = skipBytes(data, bytesWritten)
      }
    } catch (err) {
      // A half-written line is ended with a newline once the file works again.
      this.torn = lastWritten !== -1 && lastWritten !== 0x0a
      this.fail(err)
      this.queue.drop(Buffer.concat(data), /** @type {LogError} */ (this.error).message)
    } finally {
      this.writingSince = null
      this.writing = 0
    }
    this.emitDrain()
  }

  emitDrain () {
    if (!this.needDrain || this.queue.queued > this.limits.highWater / 2) return
    this.needDrain = false
    this.emit('drain')
  }

  async truncateNow () {
    try {
      await this.handle?.truncate(0)
      this.size = 0
    } catch (err) {
      this.fail(err)
    }
    for (const resolve of this.truncateWaiters.splice(0)) resolve()
  }

  /** Empty the live file (`sup flush`); lines still waiting go too. */
  truncate () {
    this.queue.discard()
    // On a full disk this is how space comes back: try the file now, not at the next retry.
    this.retryAt = 0
    return new Promise((resolve) => {
      this.truncateWaiters.push(() => resolve(undefined))
      this.kick()
    })
  }

  /**
   * Close the file and open its path again (`sup reloadLogs`): after an outside tool moved
   * it, lines go to a new file there instead of following the old one. Between batches, so
   * no line is split across the two.
   */
  reopen () {
    if (this.closed) return Promise.resolve()
    return new Promise((resolve) => {
      this.reopenWaiters.push(() => resolve(undefined))
      this.kick()
    })
  }

  async closeHandle () {
    const handle = this.handle
    this.handle = null
    this.size = 0
    // A failed file is tried again now, not after its retry delay: the user just asked.
    this.retryAt = 0
    await handle?.close().catch(() => {})
  }

  /** @returns {LogFileStatus} */
  status () {
    const { dropped } = this.queue
    return { path: this.path, size: this.size, rotations: this.rotations, dropped_lines: dropped.lines, dropped_bytes: dropped.bytes, error: this.error ?? this.rotateError }
  }

  /** Write what waits, close, and let compression finish: each bounded in time. */
  async close () {
    this.closed = true
    const settled = (async () => { while (this.pumping) await this.pumping })()
    const done = await Promise.race([settled.then(() => true), delay(this.limits.closeMs, false, { ref: false })])
    const handle = this.handle
    this.handle = null
    // A write stuck in the kernel (a hung disk) keeps the handle busy for ever: let it go.
    const closing = handle?.close().catch(() => {})
    if (done) await closing
    await Promise.race([this.background, delay(this.limits.closeMs, undefined, { ref: false })])
  }
}

/**
 * The byte at `index` of the pieces taken end to end.
 * @param {Buffer[]} parts
 * @param {number} index
 */
function byteAt (parts, index) {
  for (const part of parts) {
    if (index < part.length) return part[index]
    index -= part.length
  }
  return -1
}

/**
 * The pieces left once `count` bytes from their start are written.
 * @param {Buffer[]} parts
 * @param {number} count
 */
function skipBytes (parts, count) {
  let i = 0
  while (i < parts.length && count >= parts[i].length) count -= parts[i++].length
  const rest = parts.slice(i)
  if (count > 0) rest[0] = rest[0].subarray(count)
  return rest
}
