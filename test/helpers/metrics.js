// @ts-check
// Waits on the daemon's metrics stream: resolve as soon as the latest sample of each worker
// satisfies a predicate, or fail at the deadline with what was last seen.

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
  try {
    return await new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out after ${timeout} ms waiting for ${what}; last samples: ${JSON.stringify([...latest.values()])}`)), timeout)
      conn.on('event', (topic, data) => {
        if (topic !== 'metrics') return
        latest.set(data.id, data)
        const all = [...latest.values()]
        if (predicate(all)) {
          clearTimeout(timer)
          resolve(all)
        }
      })
      conn.request('subscribe', { topics: ['metrics'], apps }).catch((err) => {
        clearTimeout(timer)
        reject(err)
      })
    })
  } finally {
    await conn.close()
  }
}
