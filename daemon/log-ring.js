// @ts-check
// A fixed-size ring of recent log lines: `sup logs --lines N` and monit read it without
// touching the files.

/**
 * @typedef {{ time: number, app: string, id: number, instance: number, stream: 'out' | 'err', line: string }} LogEntry
 */

export class LogRing {
  /** @param {number} capacity */
  constructor (capacity) {
    this.capacity = Math.max(1, capacity)
    /** @type {LogEntry[]} */
    this.items = []
    this.start = 0
  }

  /** @param {LogEntry} entry */
  push (entry) {
    if (this.items.length < this.capacity) {
      this.items.push(entry)
      return
    }
    this.items[this.start] = entry
    this.start = (this.start + 1) % this.capacity
  }

  /**
   * The newest `count` entries that pass `filter`, oldest first.
   * @param {number} count
   * @param {(entry: LogEntry) => boolean} [filter]
   * @returns {LogEntry[]}
   */
  last (count, filter = () => true) {
    const out = []
    const n = this.items.length
    for (let i = n - 1; i >= 0 && out.length < count; i--) {
      const entry = this.items[(this.start + i) % n]
      if (filter(entry)) out.push(entry)
    }
    return out.reverse()
  }

  clear () {
    this.items = []
    this.start = 0
  }
}
