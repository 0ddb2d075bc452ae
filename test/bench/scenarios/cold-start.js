// The first CLI call with no daemon running: `sup ls` spawns the daemon and answers.
// Each round ends the daemon again (not timed). `node -e 0` and `pm2 ls` for scale.
import { runCommand } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { pm2Home, supHome } from '../lib/sides.js'
import { fmt, interleave, median } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const sup = supHome(ctx)
  const pm2 = ctx.pm2 ? pm2Home(ctx) : null
  /** @type {Record<string, () => Promise<number>>} */
  const sides = {
    'node -e 0': async () => (await runCommand(process.execPath, ['-e', '0'])).ms,
    'sup ls (cold)': async () => {
      const r = await sup.sup(['ls'])
      if (r.code !== 0) throw new Error(`sup ls: ${r.stderr}`)
      await sup.sup(['kill'])
      return r.ms
    },
    ...(pm2
      ? {
          'pm2 ls (cold)': async () => {
            const r = await pm2.pm2(['ls'])
            await pm2.pm2(['kill'])
            return r.ms
          }
        }
      : {})
  }
  const names = Object.keys(sides)
  const results = await interleave(ctx, names, ctx.pick(9, 4), (name) => sides[name]())
  const ms = Object.fromEntries(names.map((n) => [n, median(results[n])]))
  const rows = names.map((n) => [n, fmt(ms[n], 1), results[n].map((v) => fmt(v, 0)).join(' ')])
  return {
    header: ['command', 'wall ms (median)', 'rounds'],
    rows,
    figures: { ms, runs: results },
    targets: [target('sup cold start', ms['sup ls (cold)'], '<=', 150, `${fmt(ms['sup ls (cold)'], 1)} ms`)]
  }
}
