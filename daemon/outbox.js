// @ts-check
// Flow control for one subscriber of the event stream. The daemon never waits for a
// subscriber: frames go straight to the socket while little is in flight; behind that they
// queue, with bounds. A metrics frame replaces the unsent one of the same worker (it is a
// snapshot: only the newest matters), so metrics drop their oldest; log and state frames
// are kept in order, and a subscriber that falls this far behind is disconnected, so one
// slow reader can neither grow the daemon's memory nor hold up the others.

/**
 * @typedef {object} OutboxLimits
 * @property {number} inflightBytes frames handed to the socket and not yet flushed to the kernel
 * @property {number} queuedBytes log / state frames waiting behind them; past this: disconnect
 * @property {number} metricsFrames unsent metrics snapshots kept (one per worker at most)
 *
 * @typedef {object} OutboxSink
 * @property {(frame: string, done: () => void) => void} send write a frame; `done` once flushed (or failed)
 * @property {() => void} disconnect the subscriber is too far behind
 */

/** @type {OutboxLimits} */
export const OUTBOX_LIMITS = Object.freeze({ inflightBytes: 256 * 1024, queuedBytes: 4 * 1024 * 1024, metricsFrames: 1024 })

export class Outbox {
  /**
   * @param {OutboxSink} sink
   * @param {OutboxLimits} [limits]
   */
  constructor (sink, limits = OUTBOX_LIMITS) {
    this.sink = sink
    this.limits = limits
    this.inflight = 0
    /** @type {string[]} */
    this.events = []
    this.queuedBytes = 0
    /** @type {Map<string, string>} unsent metrics frame per worker, oldest first */
    this.metrics = new Map()
    /** Metrics frames replaced or dropped before they were sent. */
    this.dropped = 0
    this.disconnected = false
  }

  /**
   * @param {string} frame
   * @param {string | null} [metricsKey] the worker a metrics frame is about; null for other topics
   */
  push (frame, metricsKey = null) {
    if (this.disconnected) return
    if (this.inflight < this.limits.inflightBytes && this.events.length === 0 && this.metrics.size === 0) {
      this.write(frame)
      return
    }
    if (metricsKey !== null) {
      if (this.metrics.delete(metricsKey)) this.dropped++
      this.metrics.set(metricsKey, frame)
      if (this.metrics.size > this.limits.metricsFrames) {
        this.metrics.delete(/** @type {string} */ (this.metrics.keys().next().value))
        this.dropped++
      }
      return
    }
    this.events.push(frame)
    this.queuedBytes += frame.length
    if (this.queuedBytes > this.limits.queuedBytes) {
      this.disconnected = true
      this.events = []
      this.metrics.clear()
      this.queuedBytes = 0
      this.sink.disconnect()
    }
  }

  /** @param {string} frame */
  write (frame) {
    this.inflight += frame.length
    this.sink.send(frame, () => {
      this.inflight -= frame.length
      this.pump()
    })
  }

  /** Move queued frames to the socket as it drains: events in order first, then metrics. */
  pump () {
    while (!this.disconnected && this.inflight < this.limits.inflightBytes) {
      if (this.events.length > 0) {
        const frame = /** @type {string} */ (this.events.shift())
        this.queuedBytes -= frame.length
        this.write(frame)
      } else if (this.metrics.size > 0) {
        const [key, frame] = /** @type {[string, string]} */ (this.metrics.entries().next().value)
        this.metrics.delete(key)
        this.write(frame)
      } else {
        return
      }
    }
  }
}
