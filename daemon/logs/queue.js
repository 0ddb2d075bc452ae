// @ts-check
// The bounded queue in front of one log file: whole lines as bytes, and notes where lines had
// to be dropped. Pure (no I/O, no clock): the file writer decides when lines are taken.

const NEWLINE = 0x0a
/** At most this many bytes go to the disk in one write. */
const MAX_BATCH = 1024 * 1024

/**
 * @typedef {{ lines: number, bytes: number, reason: string }} Notice lines dropped at this point
 */

/** @param {Buffer} buf */
export function countLines (buf) {
  let lines = 0
  for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) lines++
  return buf.length > 0 && buf[buf.length - 1] !== NEWLINE ? lines + 1 : lines
}

export class LineQueue {
  /**
   * @param {{ maxQueued: number, formatNotice?: (text: string) => string }} options
   */
  constructor ({ maxQueued, formatNotice = (text) => text }) {
    this.maxQueued = maxQueued
    this.formatNotice = formatNotice
    /** @type {Array<Buffer | Notice>} */
    this.items = []
    /** Bytes of lines waiting. */
    this.queued = 0
    /** Everything dropped so far. */
    this.dropped = { lines: 0, bytes: 0 }
  }

  /**
   * Queue whole lines, or drop them when the queue is full.
   * @param {Buffer} buf
   * @param {string} reason why, if it is full
   * @param {number} [reserved] bytes held elsewhere that count toward the limit (a write in progress)
   * @returns {boolean} whether the lines were queued
   */
  push (buf, reason, reserved = 0) {
    if (this.queued + reserved + buf.length > this.maxQueued) {
      this.drop(buf, reason)
      return false
    }
    this.items.push(buf)
    this.queued += buf.length
    return true
  }

  /**
   * Count lines as lost, and note it where they would have been.
   * @param {Buffer} buf
   * @param {string} reason
   */
  drop (buf, reason) {
    const lines = countLines(buf)
    this.dropped.lines += lines
    this.dropped.bytes += buf.length
    this.addNotice({ lines, bytes: buf.length, reason })
  }

  /**
   * A note at the end of the queue, merged with one already there.
   * @param {Notice} notice
   */
  addNotice (notice) {
    const last = this.items[this.items.length - 1]
    if (last && !Buffer.isBuffer(last)) {
      last.lines += notice.lines
      last.bytes += notice.bytes
      last.reason = notice.reason
    } else {
      this.items.push({ ...notice })
    }
  }

  /**
   * Drop every waiting line (the file cannot be written); the notes stay for later.
   * @param {string} reason
   */
  dropAll (reason) {
    const waiting = this.items
    this.items = []
    this.queued = 0
    for (const item of waiting) {
      if (Buffer.isBuffer(item)) this.drop(item, reason)
      else this.addNotice(item)
    }
  }

  /** Forget everything waiting, notes included (`sup flush`). */
  discard () {
    this.items = []
    this.queued = 0
  }

  /** Anything to write at all (a note alone counts). */
  get empty () {
    return this.items.length === 0
  }

  /** Lines waiting, not just notes. */
  hasLines () {
    return this.items.some((item) => Buffer.isBuffer(item))
  }

  /**
   * The next whole lines that fit in `room` bytes. When none fits: nothing, unless the file is
   * empty, in which case the first line goes whole (a line longer than the limit is not cut).
   * @param {number} room
   * @param {boolean} fileEmpty
   * @returns {Buffer}
   */
  take (room, fileEmpty) {
    const parts = this.takeParts(room, fileEmpty)
    return parts.length === 1 ? parts[0] : Buffer.concat(parts)
  }

  /**
   * take(), as the pieces queued: written with one writev, they are never copied together.
   * @param {number} room
   * @param {boolean} fileEmpty
   * @returns {Buffer[]}
   */
  takeParts (room, fileEmpty) {
    /** @type {Buffer[]} */
    const parts = []
    let bytes = 0
    while (this.items.length > 0 && bytes < MAX_BATCH) {
      const head = this.headAsBuffer()
      if (bytes + head.length <= room) {
        parts.push(head)
        bytes += head.length
        this.items.shift()
        continue
      }
      const left = room - bytes
      let cut = left > 0 ? head.lastIndexOf(NEWLINE, left - 1) : -1
      if (cut === -1 && bytes === 0 && fileEmpty) {
        const end = head.indexOf(NEWLINE)
        cut = end === -1 ? head.length - 1 : end
      }
      if (cut !== -1) {
        parts.push(head.subarray(0, cut + 1))
        bytes += cut + 1
        if (cut + 1 < head.length) this.items[0] = head.subarray(cut + 1)
        else this.items.shift()
      }
      break
    }
    this.queued -= bytes
    return parts
  }

  /** The first item as bytes: a note becomes its line once it is about to be written. */
  headAsBuffer () {
    const item = this.items[0]
    if (Buffer.isBuffer(item)) return item
    const text = `sup: ${item.lines} line(s) (${item.bytes} bytes) dropped here: ${item.reason}`
    const buf = Buffer.from(this.formatNotice(text) + '\n')
    this.items[0] = buf
    this.queued += buf.length
    return buf
  }
}
