// @ts-check
// Run an operation while load clients hammer an app, and wait for an app to answer HTTP.
import { httpGet } from './sup.js'
import { startLoad } from './load.js'

/** ms each fresh-connection loop waits between requests: 4 loops make at most ~200 connections/s. */
const FRESH_PAUSE = 20

/**
 * @typedef {object} UnderLoadResult
 * @property {import('./load.js').LoadResult} keepAlive
 * @property {import('./load.js').LoadResult} fresh
 * @property {Set<number>} pids every pid that answered
 * @property {Array<Record<string, any>>} bodies parsed JSON bodies (the first 100,000)
 */

/**
 * Start a keep-alive and a fresh-connection client, run `operation`, then stop both (also
 * when the operation throws) and report what they saw.
 * @template T
 * @param {number} port
 * @param {() => Promise<T>} operation
 * @param {{ keepAlive?: number, fresh?: number, settle?: number }} [options] loops per client;
 *   settle: requests each client must have answered before the operation starts
 * @returns {Promise<UnderLoadResult & { value: T }>}
 */
export async function underLoad (port, operation, { keepAlive = 20, fresh = 4, settle = 20 } = {}) {
  const pids = new Set()
  /** @type {Array<Record<string, any>>} */
  const bodies = []
  const onResponse = (/** @type {{ status: number, body: string }} */ { status, body }) => {
    if (status !== 200) return
    const parsed = JSON.parse(body)
    pids.add(parsed.pid)
    if (bodies.length < 100_000) bodies.push(parsed)
  }
  const loads = [
    startLoad({ port, mode: 'keep-alive', concurrency: keepAlive, duration: 60_000, onResponse }),
    // Paced: each fresh connection holds an ephemeral port in TIME_WAIT for a minute, and
    // other tests running beside this one need ports too.
    startLoad({ port, mode: 'fresh', concurrency: fresh, duration: 60_000, pause: FRESH_PAUSE, onResponse })
  ]
  /** @type {T | undefined} */
  let value
  let failure = null
  try {
    await waitUntil(() => loads.every((l) => l.snapshot().ok + l.snapshot().failed >= settle), 10_000, 'the load to get going')
    value = await operation()
  } catch (err) {
    failure = { err }
  }
  const [keepAliveResult, freshResult] = await Promise.all(loads.map((l) => l.stop()))
  if (failure) throw failure.err
  return { keepAlive: keepAliveResult, fresh: freshResult, pids, bodies, value: /** @type {T} */ (value) }
}

/**
 * Resolve once GET / on the port answers 200.
 * @param {number} port
 * @param {number} [timeout]
 */
export async function waitForHttp (port, timeout = 15_000) {
  let last = ''
  await waitUntil(async () => {
    try {
      const { status } = await httpGet(port)
      last = `HTTP ${status}`
      return status === 200
    } catch (err) {
      last = /** @type {Error} */ (err).message
      return false
    }
  }, timeout, `port ${port} to answer (last: ${last})`)
}

/**
 * Poll a condition every 20 ms until it holds or the deadline passes.
 * @param {() => boolean | Promise<boolean>} check
 * @param {number} timeout
 * @param {string} what
 */
async function waitUntil (check, timeout, what) {
  const deadline = Date.now() + timeout
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeout} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
