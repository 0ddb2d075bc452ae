// @ts-check
// cron_restart: call onTick at each time the cron expression names (croner parses it, in
// the daemon's local time zone, as PM2 does). Timers and clock are passed in, so tests
// drive the schedule without waiting.
import { createRequire } from 'node:module'

// croner is loaded by the first schedule, not with the daemon (see watch-restart.js).
const require = createRequire(import.meta.url)

/** setTimeout cannot wait longer than this; longer waits are made of several. */
const MAX_TIMER = 2 ** 31 - 1

/**
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 */

/**
 * The first time after `time` that `expression` names, or null when there is none.
 * @param {string} expression
 * @param {number} time ms
 * @returns {number | null}
 */
export function nextCronRun (expression, time) {
  /** @type {typeof import('croner')} */
  const { Cron } = require('croner')
  const cron = new Cron(expression, { paused: true, mode: '5-or-6-parts' })
  const next = cron.nextRun(new Date(time))
  cron.stop()
  return next ? next.getTime() : null
}

export class CronSchedule {
  /**
   * @param {object} options
   * @param {string} options.expression checked already (at `sup start`)
   * @param {() => void} options.onTick
   * @param {() => number} [options.now]
   * @param {Timers} [options.timers]
   */
  constructor ({ expression, onTick, now = Date.now, timers = globalThis }) {
    this.expression = expression
    this.onTick = onTick
    this.now = now
    this.timers = timers
    /** @type {number | null} when the next tick is due */
    this.next = null
    this.timer = null
    this.stopped = false
  }

  start () {
    this.schedule(nextCronRun(this.expression, this.now()))
    return this
  }

  /** @param {number | null} next */
  schedule (next) {
    this.next = next
    if (next === null || this.stopped) return
    this.timer = this.timers.setTimeout(() => this.fire(), Math.min(Math.max(next - this.now(), 0), MAX_TIMER))
  }

  fire () {
    this.timer = null
    const due = /** @type {number} */ (this.next)
    const now = this.now()
    // A wait longer than one timer can hold, or a timer that fired early: keep waiting.
    if (now < due) return this.schedule(due)
    this.onTick()
    // From the later of the two, so a tick is never repeated and a late one is not caught up.
    this.schedule(nextCronRun(this.expression, Math.max(now, due)))
  }

  stop () {
    this.stopped = true
    if (this.timer !== null) this.timers.clearTimeout(this.timer)
    this.timer = null
    this.next = null
  }
}
