// --max-memory-restart 100M on an app growing 10 MB/s: how long it runs past the limit
// until a replacement answers. Runs once the daemon samples memory; a daemon that samples
// but does not act shows as "not replaced within 10 s".
import { supSamplesMemory } from '../lib/features.js'
import { freePort, isAlive, rss, sleep, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { app, pm2Home, supHome } from '../lib/sides.js'
import { fmt, mib } from '../lib/stats.js'

const LIMIT = 100 * 1024 * 1024

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  if (!(await supSamplesMemory(ctx))) return { unavailable: 'the daemon does not sample worker memory on this checkout (sup ls shows memory 0), so nothing can act on --max-memory-restart' }
  const script = app('grow.js')
  /** @type {Record<string, (port: number) => Promise<unknown>>} */
  const starters = {
    sup: async (port) => {
      const home = supHome(ctx)
      const r = await home.sup(['start', script, '--name', 'grow', '--max-memory-restart', '100M'], { PORT: String(port) })
      if (r.code !== 0) throw new Error(`sup start: ${r.stderr}`)
    }
  }
  // PM2 checks memory every 30 s: only a full run waits for it.
  if (ctx.pm2 && !ctx.quick) {
    starters.pm2 = async (port) => {
      await pm2Home(ctx).pm2(['start', script, '--name', 'grow', '--max-memory-restart', '100M'], { PORT: String(port) })
    }
  } else if (ctx.pm2) ctx.note('PM2 left out in --quick (it checks memory every 30 s)')
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {Record<string, unknown>} */
  const figures = {}
  for (const [side, start] of Object.entries(starters)) {
    const port = await freePort()
    await start(port)
    const [pid] = await waitForPids(port)
    const bound = side === 'pm2' ? 45_000 : 10_000
    let crossed = null
    let peak = 0
    // The limit must be crossed first (about 10 s of growth), then it gets `bound` to act.
    const deadline = performance.now() + 30_000
    while (isAlive(pid)) {
      const now = performance.now()
      let value = 0
      try { value = rss(pid) } catch { break }
      peak = Math.max(peak, value)
      if (crossed === null && value > LIMIT) crossed = now
      if ((crossed === null && now > deadline) || (crossed !== null && now - crossed > bound)) break
      await sleep(20)
    }
    // Crossed but never replaced is a miss (Infinity); never crossed says nothing (NaN).
    let past = crossed === null ? NaN : Infinity
    if (crossed !== null && !isAlive(pid)) {
      await waitForPids(port, { exclude: new Set([pid]) })
      past = performance.now() - crossed
    }
    rows.push([side, Number.isFinite(past) ? fmt(past / 1000, 2) : crossed === null ? 'never reached the limit' : `not replaced within ${bound / 1000} s`, mib(peak), fmt(peak / LIMIT, 2)])
    figures[side] = { pastLimitMs: past, peakRss: peak }
  }
  const supPast = /** @type {any} */ (figures.sup).pastLimitMs / 1000
  return {
    header: ['side', 's past the limit until a new worker answers', 'peak RSS MiB', 'peak / limit'],
    rows,
    figures,
    targets: [target('sup time past the limit (s)', supPast, '<=', 2, Number.isFinite(supPast) ? `${fmt(supPast, 2)} s` : supPast === Infinity ? 'not replaced' : 'limit never reached')]
  }
}
