// @ts-check
// Waits on the daemon's metrics stream: resolve as soon as the latest sample of each worker
// satisfies a predicate, or fail at the deadline with what was last seen.
import { waitForEvent } from './wait.js'

/**
 * @param {{ connect: () => Promise<import('../../ipc/transport.js').Connection> }} home from useSupHome
 * @param {(latest: any[]) => boolean} predicate gets the newest metrics event of every worker seen so far
 * @param {{ timeout?: number, what?: string, apps?: string[] }} [options]
 * @returns {Promise<any[]>}
 */
export async function waitForMetrics (home, predicate, { timeout = 15_000, what = 'the expected figures', apps = [] } = {}) {
  const conn = await home.connect()
  /** @type {Map<number, any>} */
  const latest = new Map()
  const done = new AbortController()
  const arrived = waitForEvent(conn, 'event', {
    what,
    timeout,
    signal: done.signal,
    filter: (topic, data) => {
      if (topic !== 'metrics') return false
      latest.set(data.id, data)
      return predicate([...latest.values()])
    },
    show: () => JSON.stringify([...latest.values()])
  })
  try {
    await Promise.all([arrived, conn.request('subscribe', { topics: ['metrics'], apps })])
    return [...latest.values()]
  } finally {
    done.abort()
    await conn.close()
  }
}
