// @ts-check
// Run an operation while load clients hammer an app, and wait for an app to answer HTTP.
import assert from 'node:assert/strict'
import { describeLoad } from './load.js'
import { httpGet, waitForExit } from './sup.js'
import { startLoad } from './load.js'
import { waitFor } from './wait.js'

/** ms each fresh-connection loop waits between requests: 4 loops make at most ~200 connections/s. */
const FRESH_PAUSE = 20
/**
 * ms each keep-alive loop waits between requests: 20 loops make at most ~4,000 requests/s.
 * Requests are still in flight on every connection through each hand-over; unpaced, the load
 * took both cores for the whole reload (the load tests were a fifth of the suite's CPU) and
 * slowed the other suites running beside them.
 */
const KEEP_ALIVE_PAUSE = 5

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
 * @param {(live: { pids: Set<number> }) => Promise<T>} operation gets the pids that have
 *   answered so far, growing while it runs (to wait until a worker served)
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
    startLoad({ port, mode: 'keep-alive', concurrency: keepAlive, duration: 60_000, pause: KEEP_ALIVE_PAUSE, onResponse }),
    // Paced: each fresh connection holds an ephemeral port in TIME_WAIT for a minute, and
    // other tests running beside this one need ports too.
    startLoad({ port, mode: 'fresh', concurrency: fresh, duration: 60_000, pause: FRESH_PAUSE, onResponse })
  ]
  /** @type {T | undefined} */
  let value
  let failure = null
  try {
    await waitFor(() => loads.every((l) => l.snapshot().ok + l.snapshot().failed >= settle), {
      what: `${settle} answers to each load client`,
      show: () => loads.map((l) => describeLoad(l.snapshot())).join('; ')
    })
    value = await operation({ pids })
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
  let last = 'no answer yet'
  await waitFor(async () => {
    try {
      const { status } = await httpGet(port)
      last = `HTTP ${status}`
      return status === 200
    } catch (err) {
      last = /** @type {Error} */ (err).message
      return false
    }
  }, { what: `port ${port} to answer 200`, timeout, show: () => last })
}

/**
 * @param {UnderLoadResult} seen
 */
export function assertNoFailedRequests (seen) {
  assert.equal(seen.keepAlive.failed, 0, `keep-alive client: ${describeLoad(seen.keepAlive)}`)
  assert.equal(seen.fresh.failed, 0, `fresh-connection client: ${describeLoad(seen.fresh)}`)
  assert.ok(seen.keepAlive.ok > 0 && seen.fresh.ok > 0, 'both clients got answers')
}

/**
 * After a reload: the same instances and ids (each new worker takes its predecessor's, as in
 * PM2), all online, new pids, every old pid gone.
 * @param {import('../../ipc/methods.js').WorkerRow[]} before
 * @param {import('../../ipc/methods.js').WorkerRow[]} after
 */
export async function assertReplaced (before, after) {
  assert.deepEqual(after.map((r) => r.status), before.map(() => 'online'))
  assert.deepEqual(after.map((r) => r.instance).sort(), before.map((r) => r.instance).sort())
  assert.equal(new Set(after.map((r) => r.id)).size, after.length, 'ids stay unique')
  assert.deepEqual(after.map((r) => [r.instance, r.id]).sort(), before.map((r) => [r.instance, r.id]).sort(), 'each instance keeps its id')
  for (const row of after) assert.ok(!before.some((b) => b.pid === row.pid), `worker ${row.id} is new`)
  await waitForExit(/** @type {number[]} */ (before.map((r) => r.pid)))
}

/**
 * Reload an app `times` times back to back under load and check each round: every worker
 * replaced, ids kept, 0 failed requests, the first and the last workers served.
 * @param {ReturnType<typeof import('./sup.js').useSupHome>} home
 * @param {string} name
 * @param {number} port
 * @param {number} times
 * @param {{ everyGeneration?: boolean }} [options] every generation (each reload's workers) answered a request
 */
export async function reloadUnderLoad (home, name, port, times, { everyGeneration = false } = {}) {
  const first = await home.ls()
  const seen = await underLoad(port, async () => {
    let before = first
    for (let i = 0; i < times; i++) {
      const result = await home.sup(['reload', name])
      assert.equal(result.code, 0, result.stderr)
      assert.match(result.stdout, /worker 1\/\d ready \(pid \d+\) · retiring pid \d+/)
      const after = await home.ls()
      await assertReplaced(before, after)
      before = after
    }
    return before
  })
  assertNoFailedRequests(seen)
  const last = seen.value
  assert.ok(first.some((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'the first workers served during the test')
  assert.ok(last.some((r) => seen.pids.has(/** @type {number} */ (r.pid))), 'the last workers served during the test')
  if (everyGeneration) assert.ok(seen.pids.size >= times + 1, `every generation served (${seen.pids.size} pids)`)
  return seen
}
