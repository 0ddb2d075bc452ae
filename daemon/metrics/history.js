// @ts-check
// A fixed ring of one worker's recent samples, for charts (monit) and `metrics.history`.
// Columns of numbers rather than objects: 5 minutes of 8 workers stay well under 100 KiB.

/** The figures kept per sample. NaN stands for "not known" (e.g. no agent). */
export const HISTORY_FIELDS = /** @type {const} */ (['time', 'cpu', 'memory', 'loop_p99', 'heap_used'])

/** @typedef {typeof HISTORY_FIELDS[number]} HistoryField */

export class SampleHistory {
  /** @param {number} capacity */
  constructor (capacity) {
    this.capacity = Math.max(1, Math.floor(capacity))
    /** @type {Record<HistoryField, Float64Array>} */
    this.columns = /** @type {any} */ (Object.fromEntries(HISTORY_FIELDS.map((f) => [f, new Float64Array(this.capacity)])))
    this.size = 0
    this.next = 0
  }

  /** @param {Record<HistoryField, number | null>} sample */
  push (sample) {
    for (const field of HISTORY_FIELDS) this.columns[field][this.next] = sample[field] ?? NaN
    this.next = (this.next + 1) % this.capacity
    this.size = Math.min(this.size + 1, this.capacity)
  }

  /**
   * The newest `count` samples (all by default), oldest first, as plain arrays; unknown
   * figures come out as null.
   * @param {number} [count]
   * @returns {Record<HistoryField, Array<number | null>>}
   */
  last (count = this.size) {
    const n = Math.max(0, Math.min(count, this.size))
    const out = /** @type {Record<HistoryField, Array<number | null>>} */ ({})
    for (const field of HISTORY_FIELDS) {
      const column = this.columns[field]
      const values = new Array(n)
      for (let i = 0; i < n; i++) {
        const v = column[(this.next - n + i + this.capacity) % this.capacity]
        values[i] = Number.isNaN(v) ? null : v
      }
      out[field] = values
    }
    return out
  }
}
