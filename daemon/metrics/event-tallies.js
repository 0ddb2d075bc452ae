// @ts-check
// Counts of the supervisor's decisions for the Prometheus endpoint: every event of the
// journal by app and kind (why workers restarted: a crash, a crash loop, liveness, the
// memory limit, watch, cron, the user), and the durations of reloads by outcome. Since the
// daemon started, as counters are: Prometheus' rate() and increase() take a reset in stride.

/**
 * @typedef {{ name: string, type: 'counter' | 'summary', help: string, samples: Array<[string, Record<string, string>, number]> }} TallyFamily
 *   samples: [suffix ('' or _sum/_count), labels, value]
 */

export class EventTallies {
  constructor () {
    /** @type {Map<string, { app: string, kind: string, n: number }>} */
    this.events = new Map()
    /** @type {Map<string, { app: string, outcome: string, sum: number, count: number }>} */
    this.reloads = new Map()
  }

  /**
   * @param {import('../../ipc/events.js').SupEvent} event
   */
  count (event) {
    if (typeof event.app !== 'string') return
    const key = `${event.app}\0${event.kind}`
    const tally = this.events.get(key) ?? { app: event.app, kind: event.kind, n: 0 }
    tally.n++
    this.events.set(key, tally)
    const { phase, outcome, ms } = /** @type {Record<string, unknown>} */ (event.data ?? {})
    if (event.kind !== 'reload' || phase !== 'end' || typeof ms !== 'number' || typeof outcome !== 'string') return
    const reloadKey = `${event.app}\0${outcome}`
    const reload = this.reloads.get(reloadKey) ?? { app: event.app, outcome, sum: 0, count: 0 }
    reload.sum += ms / 1000
    reload.count++
    this.reloads.set(reloadKey, reload)
  }

  /** @returns {TallyFamily[]} */
  families () {
    return [
      {
        name: 'sup_events_total',
        type: 'counter',
        help: 'Supervisor decisions by app and kind since the daemon started (sup events: restarting, crash-loop, liveness, memory-limit, watch, cron, restart, reload, ...).',
        samples: [...this.events.values()].map((t) => ['', { app: t.app, kind: t.kind }, t.n])
      },
      {
        name: 'sup_reload_duration_seconds',
        type: 'summary',
        help: 'Time from the start to the end of each reload of the app, by outcome, since the daemon started.',
        samples: [...this.reloads.values()].flatMap((r) => [['_sum', { app: r.app, outcome: r.outcome }, r.sum], ['_count', { app: r.app, outcome: r.outcome }, r.count]])
      }
    ]
  }
}
