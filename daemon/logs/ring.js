// @ts-check
// The recent log lines of an app, bounded in count and in characters: `sup logs --lines N` and
// monit read it without touching the files. Lines come one by one (pushed as entries) or as
// a chunk of whole lines in bytes (pushLines), kept as they came and cut into entries only
// when read: the log path never decodes a line nobody asks for (docs/benchmarks.md, logs).

const NEWLINE = 0x0a

/**
 * @typedef {{ time: number, app: string, id: number, instance: number, stream: 'out' | 'err' | 'sup', line: string }} LogEntry
 * @typedef {Omit<LogEntry, 'line'>} LineSource
 * @typedef {{ source: LineSource, buf: Buffer, lines: number }} Chunk whole lines, each ending in "\n"
 */

/** @param {LogEntry | Chunk} item */
const isChunk = (item) => 'buf' in item

export class LogRing {
  /**
   * @param {number} capacity lines kept
   * @param {number} [maxChars] characters kept, over all lines (the newest line is always kept)
   */
  constructor (capacity, maxChars = Infinity) {
    this.capacity = Math.max(1, capacity)
    this.maxChars = maxChars
    /** @type {Array<LogEntry | Chunk>} oldest first, from `head` on */
    this.items = []
    this.head = 0
    this.chars = 0
    /** Lines held. */
    this.size = 0
  }

  /** @param {LogEntry} entry */
  push (entry) {
    this.items.push(entry)
    this.chars += entry.line.length
    this.size++
    this.evict()
  }

  /**
   * Whole lines as bytes, kept undecoded until read. A small piece of a larger buffer is
   * copied, so the ring never holds a big read buffer alive for a few bytes of it.
   * @param {LineSource} source
   * @param {Buffer} buf whole lines, each ending in "\n"
   */
  pushLines (source, buf) {
    let lines = 0
    for (let i = buf.indexOf(NEWLINE); i !== -1; i = buf.indexOf(NEWLINE, i + 1)) lines++
    if (lines === 0) return
    const kept = buf.buffer.byteLength > 2 * buf.length + 4096 ? Buffer.from(buf) : buf
    this.items.push({ source, buf: kept, lines })
    this.chars += buf.length - lines
    this.size += lines
    this.evict()
  }

  /** Drop the oldest lines until both bounds hold (the newest line always stays). */
  evict () {
    while (this.size > this.capacity || (this.chars > this.maxChars && this.size > 1)) {
      const oldest = this.items[this.head]
      if (isChunk(oldest) && oldest.lines > 1) {
        // Cut lines off the front of a chunk: as many as the count is over, else one.
        let cut = Math.min(Math.max(this.size - this.capacity, 1), oldest.lines - 1)
        let at = 0
        while (cut-- > 0) {
          const end = oldest.buf.indexOf(NEWLINE, at) + 1
          this.chars -= end - at - 1
          oldest.lines--
          this.size--
          at = end
        }
        oldest.buf = oldest.buf.subarray(at)
        continue
      }
      this.chars -= isChunk(oldest) ? oldest.buf.length - 1 : oldest.line.length
      this.size--
      // Let go of it now (a chunk may hold 64 KiB), not when the slots are compacted.
      /** @type {any[]} */ (this.items)[this.head] = null
      this.head++
    }
    // Drop the evicted slots now and then, not on every push.
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head)
      this.head = 0
    }
  }

  /**
   * The newest `count` entries that pass `filter`, oldest first.
   * @param {number} count
   * @param {(entry: LogEntry) => boolean} [filter]
   * @returns {LogEntry[]}
   */
  last (count, filter = () => true) {
    const out = []
    for (let i = this.items.length - 1; i >= this.head && out.length < count; i--) {
      const item = this.items[i]
      if (!isChunk(item)) {
        if (filter(item)) out.push(item)
        continue
      }
      const lines = item.buf.toString('utf8', 0, item.buf.length - 1).split('\n')
      for (let j = lines.length - 1; j >= 0 && out.length < count; j--) {
        const entry = { ...item.source, line: lines[j] }
        if (filter(entry)) out.push(entry)
      }
    }
    return out.reverse()
  }

  clear () {
    this.items = []
    this.head = 0
    this.chars = 0
    this.size = 0
  }
}
