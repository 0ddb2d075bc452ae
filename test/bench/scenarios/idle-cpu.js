// The daemon's own CPU with 8 idle cluster workers: what supervising (and sampling, once
// on main) costs when nothing happens. PM2's daemon measured over the same windows. And the 8
// workers' own CPU against the hand-written primary's 8 (plain node:cluster workers, no
// agent): what the agent in each worker costs while the app idles.
import { cpuTime, sleep } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { serve } from '../lib/serve.js'
import { app } from '../lib/sides.js'
import { fmt, median } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  /** @type {import('../lib/serve.js').Side[]} */
  const sides = ['sup', ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])]
  const served = []
  for (const side of sides) served.push(await serve(ctx, side, { script: app('hello.js'), workers: 8, name: 'idle' }))
  const floor = await serve(ctx, 'primary', { script: app('hello.js'), workers: 8 })
  /** The workers of each side and the floor's, summed. @param {import('../lib/serve.js').Served} s */
  const workersCpu = (s) => s.pids.reduce((sum, pid) => sum + cpuTime(pid), 0)
  const watched = [...served, floor]
  // Past the start-up's own work (the agents' first reports, the first compiles, the state
  // file; the first 10 s windows after it still read 2-4 times the later ones, the hand-written
  // primary's workers too): idle means nothing happening.
  await sleep(15_000)
  const seconds = ctx.pick(10, 4)
  // A shared VM's noise moves single 10 s windows by ±0.3 % of a core, both daemons alike:
  // six windows give the median something to hold on to.
  const windows = ctx.pick(6, 2)
  /** @type {Record<string, number[]>} */
  const percent = Object.fromEntries(sides.map((s) => [s, []]))
  /** @type {Record<string, number[]>} */
  const workerPercent = Object.fromEntries(watched.map((s) => [s.side, []]))
  // Both daemons are watched over the same windows: idle load is not worth interleaving.
  for (let w = 0; w < windows && !(w > 0 && ctx.outOfTime()); w++) {
    const before = served.map((s) => cpuTime(/** @type {number} */ (s.daemonPid)))
    const workersBefore = watched.map(workersCpu)
    const t0 = performance.now()
    await sleep(seconds * 1000)
    const elapsed = performance.now() - t0
    served.forEach((s, i) => percent[s.side].push(100 * (cpuTime(/** @type {number} */ (s.daemonPid)) - before[i]) / elapsed))
    watched.forEach((s, i) => workerPercent[s.side].push(100 * (workersCpu(s) - workersBefore[i]) / elapsed))
  }
  for (const s of watched) await s.stop()
  const med = Object.fromEntries(sides.map((s) => [s, median(percent[s])]))
  const rows = sides.map((s) => [s === 'sup' ? 'sup daemon' : 'PM2 daemon', `${fmt(med[s], 3)} %`, percent[s].map((v) => fmt(v, 3)).join(' ')])
  const workersMed = Object.fromEntries(watched.map((s) => [s.side, median(workerPercent[s.side])]))
  const workerLabel = { sup: 'sup: its 8 workers', pm2: 'PM2: its 8 workers', primary: 'hand-written primary: its 8 workers' }
  for (const s of watched) rows.push([workerLabel[/** @type {'sup' | 'pm2' | 'primary'} */ (s.side)], `${fmt(workersMed[s.side], 3)} %`, workerPercent[s.side].map((v) => fmt(v, 3)).join(' ')])
  return {
    header: ['process', `CPU, 8 idle workers (median of ${seconds} s windows)`, 'windows'],
    rows,
    figures: { percent: med, windows: percent, seconds, workers: workersMed, workerWindows: workerPercent },
    targets: [target('sup daemon CPU, 8 idle workers (% of a core)', med.sup, '<=', 0.25, `${fmt(med.sup, 3)} %`)]
  }
}
