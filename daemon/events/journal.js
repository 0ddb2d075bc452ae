// @ts-check
// Every supervisor decision as an event with its reason (design §10, docs/events.md): one
// source of truth in the daemon. A bounded ring in memory serves `sup events`, `describe` and
// monit; the same events are appended to $SUP_HOME/events.jsonl so the history survives a
// daemon restart, as `kubectl get events` and `docker events` keep theirs. The file is opened
// without following a symlink, read back with a size cap, and rotated to events.jsonl.1.
import { EventEmitter } from 'node:events'
import { constants } from 'node:fs'
import { open, rename } from 'node:fs/promises'

/** Events kept in memory (and read back at start). */
export const JOURNAL_CAPACITY = 1000
/** The file is rotated past this size; one rotated file is kept. */
export const JOURNAL_MAX_BYTES = 512 * 1024

const APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW

/**
 * @typedef {import('../../ipc/events.js').SupEvent} SupEvent
 * @typedef {Omit<SupEvent, 'seq' | 'at'> & { at?: number }} EventInput
 */

export class EventJournal extends EventEmitter {
  /**
   * @param {{ file: string | null, logger: import('pino').Logger, now?: () => number, capacity?: number, maxBytes?: number }} options
   *   file: null keeps the events in memory only (sup-runtime, tests)
   */
  constructor ({ file, logger, now = Date.now, capacity = JOURNAL_CAPACITY, maxBytes = JOURNAL_MAX_BYTES }) {
    super()
    this.file = file
    this.logger = logger
    this.now = now
    this.capacity = capacity
    this.maxBytes = maxBytes
    /** @type {SupEvent[]} oldest first */
    this.ring = []
    this.seq = 0
    /** @type {string[]} lines not yet written */
    this.pending = []
    /** @type {Promise<void> | null} */
    this.writing = null
    /** @type {import('node:fs/promises').FileHandle | null} */
    this.handle = null
    this.size = 0
    this.failed = false
  }

  /** Read back what an earlier daemon recorded (the rotated file first), at most `capacity` events. */
  async load () {
    if (!this.file) return
    const lines = [...await readTail(`${this.file}.1`, this.maxBytes), ...await readTail(this.file, this.maxBytes)]
    for (const line of lines) {
      const event = parseEvent(line)
      if (event) this.ring.push(event)
    }
    if (this.ring.length > this.capacity) this.ring.splice(0, this.ring.length - this.capacity)
    this.seq = this.ring.reduce((max, e) => Math.max(max, e.seq), 0)
  }

  /**
   * Record one decision; subscribers and the file get it.
   * @param {EventInput} input
   * @returns {SupEvent}
   */
  record (input) {
    const event = { seq: ++this.seq, at: input.at ?? this.now(), kind: input.kind, level: input.level, app: input.app, id: input.id, instance: input.instance, message: input.message, data: input.data ?? {} }
    this.ring.push(event)
    if (this.ring.length > this.capacity) this.ring.shift()
    this.emit('event', event)
    if (this.file && !this.failed) {
      this.pending.push(JSON.stringify(event) + '\n')
      this.writing ??= this.flush()
    }
    return event
  }

  /**
   * The events kept, oldest first.
   * @param {{ apps?: Set<string> | null, ids?: Set<number> | null, limit?: number }} [filter]
   */
  list ({ apps = null, ids = null, limit = this.capacity } = {}) {
    const matched = this.ring.filter((e) => (!apps || apps.has(e.app)) && (!ids || (e.id !== null && ids.has(e.id))))
    return limit >= matched.length ? matched : matched.slice(matched.length - limit)
  }

  /** Write what is pending, one write per turn; a failing disk stops the file, never the daemon. */
  async flush () {
    try {
      while (this.pending.length > 0) {
        const text = this.pending.join('')
        this.pending = []
        if (!this.handle || this.size >= this.maxBytes) await this.reopen()
        const handle = /** @type {import('node:fs/promises').FileHandle} */ (this.handle)
        await handle.write(text)
        this.size += Buffer.byteLength(text)
      }
    } catch (err) {
      this.failed = true
      this.pending = []
      this.logger.warn({ err, file: this.file }, 'cannot write the events file; events are kept in memory only')
    } finally {
      this.writing = null
    }
  }

  /** Open the file (rotating it when it has grown past maxBytes). */
  async reopen () {
    const file = /** @type {string} */ (this.file)
    if (this.handle) {
      await this.handle.close()
      this.handle = null
      await rename(file, `${file}.1`)
    }
    this.handle = await open(file, APPEND_FLAGS, 0o600)
    const stat = await this.handle.stat()
    if (!stat.isFile()) throw new Error(`${file} is not a regular file`)
    this.size = stat.size
  }

  /** Write what is pending, then close the file. */
  async close () {
    await this.writing
    await this.handle?.close()
    this.handle = null
  }
}

/**
 * The last `maxBytes` of a file as lines (the first, likely cut, dropped when the file is
 * larger); nothing when it is missing, a symlink or not a regular file.
 * @param {string} file
 * @param {number} maxBytes
 * @returns {Promise<string[]>}
 */
async function readTail (file, maxBytes) {
  /** @type {import('node:fs/promises').FileHandle} */
  let handle
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch {
    return []
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) return []
    const length = Math.min(stat.size, maxBytes)
    const buffer = Buffer.alloc(length)
    const { bytesRead } = await handle.read(buffer, 0, length, stat.size - length)
    const lines = buffer.subarray(0, bytesRead).toString('utf8').split('\n')
    if (stat.size > length) lines.shift()
    return lines.filter((line) => line.length > 0)
  } finally {
    await handle.close()
  }
}

const LEVELS = new Set(['info', 'warn', 'error'])

/**
 * One line of the file, checked field by field: the file is sup's own, but a line that is not
 * what sup writes is dropped, never passed on.
 * @param {string} line
 * @returns {SupEvent | null}
 */
export function parseEvent (line) {
  let value
  try { value = JSON.parse(line) } catch { return null }
  if (!value || typeof value !== 'object') return null
  const { seq, at, kind, level, app, id, instance, message, data } = value
  if (!Number.isSafeInteger(seq) || seq < 1 || !Number.isFinite(at)) return null
  if (typeof kind !== 'string' || kind.length > 64 || !LEVELS.has(level)) return null
  if (typeof app !== 'string' || app.length > 256 || typeof message !== 'string' || message.length > 4096) return null
  if (!(id === null || Number.isSafeInteger(id)) || !(instance === null || Number.isSafeInteger(instance))) return null
  if (data !== undefined && (data === null || typeof data !== 'object' || Array.isArray(data))) return null
  return { seq, at, kind, level, app, id, instance, message, data: data ?? {} }
}
