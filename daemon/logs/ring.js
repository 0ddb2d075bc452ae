// @ts-check
// The recent log lines of an app, bounded in count and in characters: `sup logs --lines N` and
// monit read it without touching the files.

/**
 * @typedef {{ time: number, app: string, id: number, instance: number, stream: 'out' | 'err', line: string }} LogEntry
 */

export class LogRing {
  /**
   * @param {number} capacity lines kept
   * @param {number} [maxChars] characters kept, over all lines (the newest line is always kept)
   */
  constructor (capacity, maxChars = Infinity) {
    this.capacity = Math.max(1, capacity)
    this.maxChars = maxChars
    /** @type {LogEntry[]} oldest first, from `head` on */
    this.items = []
    this.head = 0
    this.chars = 0
  }

  /** Lines held. */
  get size () {
    return this.items.length - this.head
  }

  /** @param {LogEntry} entry */
  push (entry) {
    this.items.push(entry)
    this.chars += entry.line.length
    while (this.size > this.capacity || (this.chars > this.maxChars && this.size > 1)) {
      this.chars -= this.items[this.head].line.length
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
      if (filter(this.items[i])) out.push(this.items[i])
    }
    return out.reverse()
  }

  clear () {
    this.items = []
    this.head = 0
    this.chars = 0
  }
}
