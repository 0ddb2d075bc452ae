// `sup ls` and `sup ls --json` wall time with the daemon up, 0 and 20 apps, against the
// floor of any node CLI: `node -e 0` (and `pm2 ls` / `pm2 jlist`).
import { writeEcosystem } from '../lib/ecosystem.js'
import { runCommand, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { app, pm2Home, supHome } from '../lib/sides.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const sup = supHome(ctx)
  const pm2 = ctx.pm2 ? pm2Home(ctx) : null
  await sup.sup(['ping'])
  await pm2?.pm2(['ping'])
  /** @type {Record<string, () => Promise<{ code: number, ms: number, stderr: string }>>} */
  const commands = {
    'node -e 0': () => runCommand(process.execPath, ['-e', '0']),
    'sup ls': () => sup.sup(['ls']),
    'sup ls --json': () => sup.sup(['ls', '--json']),
    ...(pm2 ? { 'pm2 ls': () => pm2.pm2(['ls']), 'pm2 jlist': () => pm2.pm2(['jlist']) } : {})
  }
  const names = Object.keys(commands)
  const rounds = ctx.pick(15, 5)
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {Record<string, unknown>} */
  const figures = {}
  const targets = []
  for (const apps of [0, 20]) {
    if (apps > 0) {
      const eco = await writeEcosystem(sup.home, app('hello.js'), apps)
      const started = await sup.sup(['start', eco.file])
      if (started.code !== 0) throw new Error(`sup start: ${started.stderr}`)
      for (const port of eco.ports) await waitForPids(port)
      if (pm2) {
        const pm2Eco = await writeEcosystem(pm2.home, app('hello.js'), apps)
        await pm2.pm2(['start', pm2Eco.file])
        for (const port of pm2Eco.ports) await waitForPids(port)
      }
    }
    const results = await interleave(ctx, names, rounds, async (name) => {
      const r = await commands[name]()
      if (r.code !== 0) throw new Error(`${name} failed: ${r.stderr}`)
      return r.ms
    })
    const ms = Object.fromEntries(names.map((n) => [n, median(results[n])]))
    for (const n of names) rows.push([apps, n, fmt(ms[n], 1), times(ratio(ms[n], ms['node -e 0']))])
    figures[`apps${apps}`] = { ms, runs: results }
    for (const n of ['sup ls', 'sup ls --json']) {
      targets.push(target(`${n}, ${apps} apps / node -e 0`, ratio(ms[n], ms['node -e 0']), '<=', 1.2, times(ratio(ms[n], ms['node -e 0']))))
    }
  }
  return { header: ['apps', 'command', 'wall ms (median)', 'vs node -e 0'], rows, figures, targets }
}
