// kill -9 of one worker of two → its replacement answering HTTP, against the hand-written
// primary re-forking on 'exit' (and PM2).
import { target } from '../lib/report.js'
import { waitForNewPid, waitForPids } from '../lib/procs.js'
import { LABELS, serve } from '../lib/serve.js'
import { app } from '../lib/sides.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  /** @type {import('../lib/serve.js').Side[]} */
  const sides = ['primary', 'sup', ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])]
  const served = []
  for (const side of sides) served.push(await serve(ctx, side, { script: app('hello.js') }))
  const bySide = Object.fromEntries(served.map((s) => [s.side, s]))
  const results = await interleave(ctx, sides, ctx.pick(9, 4), async (side) => {
    const { port } = bySide[side]
    const current = await waitForPids(port, { count: 2 })
    const started = performance.now()
    process.kill(current[0], 'SIGKILL')
    await waitForNewPid(port, new Set(current))
    return performance.now() - started
  })
  for (const s of served) await s.stop()
  const ms = Object.fromEntries(sides.map((side) => [side, median(results[side])]))
  const rows = sides.map((side) => [LABELS[side], fmt(ms[side], 1), times(ratio(ms[side], ms.primary)), results[side].map((v) => fmt(v, 0)).join(' ')])
  const targets = [target('sup / hand-written primary', ratio(ms.sup, ms.primary), '<=', 1.1, times(ratio(ms.sup, ms.primary)))]
  return { header: ['side', 'kill → new worker answers (ms, median)', 'vs floor', 'rounds (ms)'], rows, figures: { ms, runs: results }, targets }
}
