// Cluster throughput, keep-alive load: sup -i 2 against the seeds' hand-written primary
// (and PM2), for the `hello` and `cpu` workloads.
import { runLoad } from '../lib/load.js'
import { target } from '../lib/report.js'
import { app } from '../lib/sides.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'
import { LABELS, serve } from '../lib/serve.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  return measureThroughput(ctx, { close: false, sides: ['primary', 'sup', ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])] })
}

/**
 * @param {import('../run.js').BenchContext} ctx
 * @param {{ close: boolean, sides: import('../lib/serve.js').Side[], floorFor?: Record<string, string> }} options
 */
export async function measureThroughput (ctx, { close, sides, floorFor = {} }) {
  const seconds = ctx.pick(4, 2)
  const rounds = ctx.pick(3, 2)
  const connections = close ? 32 : 64
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {Record<string, unknown>} */
  const figures = { seconds, rounds, connections, loader: ctx.loader }
  const targets = []
  for (const workload of ['hello', 'cpu']) {
    const served = []
    for (const side of sides) served.push(await serve(ctx, side, { script: app(`${workload}.js`) }))
    const bySide = Object.fromEntries(served.map((s) => [s.side, s]))
    for (const s of served) await runLoad({ loader: ctx.loader, port: s.port, connections, seconds: 1, close })
    ctx.log(`${workload}: ${rounds} round(s) of ${seconds} s per side`)
    const results = await interleave(ctx, sides, rounds, (side) =>
      runLoad({ loader: ctx.loader, port: bySide[side].port, connections, seconds, close }))
    for (const s of served) await s.stop()
    const rps = Object.fromEntries(sides.map((side) => [side, median(results[side].map((r) => r.rps))]))
    const failed = Object.fromEntries(sides.map((side) => [side, results[side].reduce((n, r) => n + r.errors + r.non2xx, 0)]))
    for (const side of sides) {
      const floor = floorFor[side] ?? 'primary'
      rows.push([workload, LABELS[side], fmt(rps[side]), side === floor ? '1.00×' : times(ratio(rps[side], rps[floor])), failed[side], results[side].map((r) => fmt(r.rps)).join(' ')])
    }
    figures[workload] = { rps, failed, runs: Object.fromEntries(sides.map((side) => [side, results[side].map((r) => r.rps)])) }
    if (!close) {
      targets.push(target(`${workload}: sup / hand-written primary`, ratio(rps.sup, rps.primary), '>=', 0.97, times(ratio(rps.sup, rps.primary))))
      if (rps.pm2) targets.push(target(`${workload}: sup / PM2`, ratio(rps.sup, rps.pm2), '>=', 1, times(ratio(rps.sup, rps.pm2))))
    } else {
      targets.push(target(`${workload}: sup (default) / SCHED_RR primary`, ratio(rps.sup, rps.primary), '>=', 1, times(ratio(rps.sup, rps.primary))))
      if (rps['sup-os']) targets.push(target(`${workload}: sup SUP_BALANCE=os / SCHED_NONE primary`, ratio(rps['sup-os'], rps['primary-none']), '>=', 0.95, times(ratio(rps['sup-os'], rps['primary-none']))))
    }
  }
  return { header: ['app', 'side', 'req/s (median)', 'vs floor', 'failed', 'rounds'], rows, figures, targets }
}
