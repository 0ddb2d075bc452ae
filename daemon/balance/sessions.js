// @ts-check
// The sticky table of one app: a session key (socket.io's sid, a cookie's value, a client
// address) → the worker that holds it. Bounded (least recently used go first) and forgetful
// (an entry unused for `ttlMs` is gone), because its keys come from the network.

export const MAX_SESSIONS = 100_000
export const SESSION_TTL_MS = 10 * 60_000

/** @template V */
export class Sessions {
  /**
   * @param {{ max?: number, ttlMs?: number }} [options]
   */
  constructor ({ max = MAX_SESSIONS, ttlMs = SESSION_TTL_MS } = {}) {
    this.max = max
    this.ttlMs = ttlMs
    /** @type {Map<string, { value: V, at: number }>} in order of last use */
    this.entries = new Map()
  }

  /**
   * @param {string} key
   * @param {number} now
   * @returns {V | undefined}
   */
  get (key, now) {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    this.entries.delete(key)
    if (now - entry.at > this.ttlMs) return undefined
    entry.at = now
    this.entries.set(key, entry)
    return entry.value
  }

  /**
   * @param {string} key
   * @param {V} value
   * @param {number} now
   */
  set (key, value, now) {
    this.entries.delete(key)
    this.entries.set(key, { value, at: now })
    for (const [oldest, entry] of this.entries) {
      if (this.entries.size <= this.max && now - entry.at <= this.ttlMs) break
      this.entries.delete(oldest)
    }
  }

  /**
   * Drop every session of a value (a worker that is gone).
   * @param {V} value
   */
  forget (value) {
    for (const [key, entry] of this.entries) if (entry.value === value) this.entries.delete(key)
  }

  get size () {
    return this.entries.size
  }
}
