// @ts-check
// Soak (`npm run test:faults`): many worker restarts, reloads and list calls against one
// daemon, its RSS and open fds sampled every second. What must hold: after warm-up the fd count
// does not grow and RSS stays flat; the slopes are printed (`# ...`) for docs/reliability.md.
//   SOAK_RESTARTS (default 2000; issue 13's full size is 10000), SOAK_RELOADS (default 200;
//   full 2000), SOAK_LISTS (default 5000; full 20000). `ls` goes over one connection
//   (`app.list`), so it measures the daemon, not 20,000 CLI start-ups. Medians per quarter of
//   RSS and of anonymous memory (smaps_rollup) are printed too.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { readDaemonPid } from '../../client/daemon.js'
import { APPS, freePort, useSupHome } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

const RESTARTS = Number(process.env.SOAK_RESTARTS ?? 2000)
const RELOADS = Number(process.env.SOAK_RELOADS ?? 200)
const LISTS = Number(process.env.SOAK_LISTS ?? 5000)

/**
 * RSS, anonymous memory (heap, malloc arenas: what a leak would grow, unlike the node binary's
 * pages) and open fds of the daemon.
 * @param {number} pid
 */
function sample (pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1]) * 1024
  const anon = Number(/^Anonymous:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1]) * 1024
  return { at: Date.now(), rss, anon, fds: readdirSync(`/proc/${pid}/fd`).length }
}

/**
 * Medians of each quarter of the samples, in MiB: a drift shows as a staircase, GC noise not.
 * @param {Array<{ rss: number, anon: number }>} samples
 * @param {'rss' | 'anon'} key
 */
function quarterMedians (samples, key) {
  const size = Math.max(1, Math.floor(samples.length / 4))
  return [0, 1, 2, 3].map((q) => median(samples.slice(q * size, q === 3 ? samples.length : (q + 1) * size).map((s) => s[key])) / 1048576).map((v) => v.toFixed(1)).join(', ')
}

/**
 * Least-squares slope of y over x.
 * @param {number[]} xs
 * @param {number[]} ys
 */
function slope (xs, ys) {
  const n = xs.length
  const mx = xs.reduce((a, b) => a + b, 0) / n
  const my = ys.reduce((a, b) => a + b, 0) / n
  let num = 0
  let den = 0
  for (let i = 0; i < n; i++) {
    num += (xs[i] - mx) * (ys[i] - my)
    den += (xs[i] - mx) ** 2
  }
  return den === 0 ? 0 : num / den
}

/** @param {number[]} values */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

test(`soak: ${RESTARTS} worker restarts, ${RELOADS} reloads, ${LISTS} lists; RSS and fds flat after warm-up`, async (t) => {
  const home = useSupHome(t)
  const crashing = await home.sup(['start', join(APPS, 'exits-after.js'), '-i', '4', '--name', 'crashy', '--min-uptime', '50'])
  assert.equal(crashing.code, 0, crashing.stderr)
  const port = await freePort()
  const web = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  assert.equal(web.code, 0, web.stderr)
  const pid = /** @type {number} */ (readDaemonPid(home.paths))
  const samples = [sample(pid)]
  const sampler = setInterval(() => samples.push(sample(pid)), 1000)
  t.after(() => clearInterval(sampler))
  const conn = await home.connect()
  t.after(() => conn.close())

  const restartsSoFar = async () => (/** @type {Array<{ name: string, restarts: number }>} */ (await conn.request('app.list'))).filter((r) => r.name === 'crashy').reduce((sum, r) => sum + r.restarts, 0)
  const began = Date.now()
  let lists = 0
  let reloads = 0
  const listing = (async () => {
    while (lists < LISTS) {
      await conn.request('app.list')
      lists++
    }
  })()
  const reloading = (async () => {
    while (reloads < RELOADS) {
      await conn.request('app.reload', { targets: ['web'] })
      reloads++
    }
  })()
  await Promise.all([listing, reloading])
  // Bounded: restarts come every ~150 ms per worker; a stall shows as no progress for 60 s.
  let last = -1
  let stalledSince = Date.now()
  await waitFor(async () => {
    const now = await restartsSoFar()
    if (now !== last) { last = now; stalledSince = Date.now() }
    assert.ok(Date.now() - stalledSince < 60_000, `restarts stalled at ${now}`)
    return now >= RESTARTS
  }, { what: `${RESTARTS} restarts`, timeout: RESTARTS * 500, interval: 1000, show: () => `${last} restarts` })
  const restarts = await restartsSoFar()
  await conn.request('app.stop', { targets: ['crashy'] })
  samples.push(sample(pid))
  clearInterval(sampler)

  const warm = samples.slice(Math.floor(samples.length / 5))
  const hours = (/** @type {number} */ ms) => ms / 3_600_000
  const xs = warm.map((s) => hours(s.at - began))
  const rssSlope = slope(xs, warm.map((s) => s.rss / 1048576))
  const fdSlope = slope(xs, warm.map((s) => s.fds))
  const firstHalf = warm.slice(0, Math.floor(warm.length / 2))
  const secondHalf = warm.slice(Math.floor(warm.length / 2))
  const rssGrowth = (median(secondHalf.map((s) => s.rss)) - median(firstHalf.map((s) => s.rss))) / 1048576
  t.diagnostic(`${restarts} restarts, ${reloads} reloads, ${lists} lists in ${Math.round((Date.now() - began) / 1000)} s; ` +
    `RSS ${(samples[0].rss / 1048576).toFixed(1)} → ${(samples.at(-1)?.rss ?? 0) / 1048576 | 0} MiB, after warm-up median ${(median(firstHalf.map((s) => s.rss)) / 1048576).toFixed(1)} → ${(median(secondHalf.map((s) => s.rss)) / 1048576).toFixed(1)} MiB, slope ${rssSlope.toFixed(1)} MiB/h; ` +
    `fds ${samples[0].fds} → ${samples.at(-1)?.fds}, slope ${fdSlope.toFixed(1)}/h; ${samples.length} samples`)
  t.diagnostic(`after warm-up, medians per quarter: RSS ${quarterMedians(warm, 'rss')} MiB; anonymous ${quarterMedians(warm, 'anon')} MiB`)
  assert.ok(restarts >= RESTARTS)
  // fds: every restart opens pipes and closes them, so a sample can catch a few in flight;
  // the medians of the two halves compare what stays open. A leak would climb by thousands.
  const fdGrowth = median(secondHalf.map((s) => s.fds)) - median(firstHalf.map((s) => s.fds))
  assert.ok(fdGrowth <= 4, `open fds grew by ${fdGrowth} between the halves`)
  // RSS: GC makes it jump by a few MiB; a leak per restart would be tens of MiB by now.
  assert.ok(rssGrowth < 16, `RSS grew ${rssGrowth.toFixed(1)} MiB between the halves`)
})
