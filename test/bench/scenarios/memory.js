// Footprint: the daemon's RSS with 0 and 20 apps, then idle again after a burst of restarts (a
// crash loop, deleted), and one worker's RSS against the same app run as plain `node app.js`
// (the agent's cost). PM2 alongside when installed.
import { writeEcosystem } from '../lib/ecosystem.js'
import { probe, rss, sleep, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { LABELS, serve } from '../lib/serve.js'
import { app, pm2Home, supHome } from '../lib/sides.js'
import { interleave, median, mib } from '../lib/stats.js'

const MiB = 1024 * 1024

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  /** @type {(string | number)[][]} */
  const rows = []
  const targets = []

  // Workers: the same app, warmed by the same requests, measured once settled.
  /** @type {import('../lib/serve.js').Side[]} */
  const sides = ['plain', 'primary', 'sup', 'sup-fork', ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])]
  const workerRss = await interleave(ctx, sides, ctx.pick(3, 2), async (side) => {
    const served = await serve(ctx, side, { script: app('hello.js'), workers: 1 })
    for (let i = 0; i < 200; i++) await probe(served.port)
    await sleep(500)
    const value = rss(served.pids[0])
    await served.stop()
    return value
  })
  const worker = Object.fromEntries(sides.map((s) => [s, median(workerRss[s])]))
  for (const s of sides) rows.push([`worker: ${LABELS[s]}`, mib(worker[s]), s === 'plain' ? '' : `${worker[s] >= worker.plain ? '+' : ''}${mib(worker[s] - worker.plain)}`])
  targets.push(
    target('sup cluster worker RSS − plain node (MiB)', (worker.sup - worker.plain) / MiB, '<=', 2, `${mib(worker.sup - worker.plain)} MiB`),
    target('sup fork-mode worker RSS − plain node (MiB)', (worker['sup-fork'] - worker.plain) / MiB, '<=', 2, `${mib(worker['sup-fork'] - worker.plain)} MiB`)
  )

  // Daemons: up with nothing, then with 20 one-worker apps.
  const sup = supHome(ctx)
  const pm2 = ctx.pm2 ? pm2Home(ctx) : null
  await sup.sup(['ping'])
  await pm2?.pm2(['ping'])
  await sleep(1000)
  /** @type {Record<string, Record<string, number>>} */
  const daemon = { sup: {}, pm2: {} }
  const supPid = /** @type {number} */ (sup.daemonPid())
  const pm2Pid = pm2?.daemonPid() ?? null
  daemon.sup.apps0 = rss(supPid)
  if (pm2Pid) daemon.pm2.apps0 = rss(pm2Pid)
  const eco = await writeEcosystem(sup.home, app('hello.js'), 20)
  await sup.sup(['start', eco.file])
  for (const port of eco.ports) await waitForPids(port)
  if (pm2) {
    const pm2Eco = await writeEcosystem(pm2.home, app('hello.js'), 20)
    await pm2.pm2(['start', pm2Eco.file])
    for (const port of pm2Eco.ports) await waitForPids(port)
  }
  await sleep(2000)
  daemon.sup.apps20 = rss(supPid)
  if (pm2Pid) daemon.pm2.apps20 = rss(pm2Pid)
  rows.push(['daemon: sup, 0 apps', mib(daemon.sup.apps0), ''], ['daemon: sup, 20 apps', mib(daemon.sup.apps20), ''])
  if (pm2Pid) rows.push(['daemon: PM2, 0 apps', mib(daemon.pm2.apps0), ''], ['daemon: PM2, 20 apps', mib(daemon.pm2.apps20), ''])

  // A burst: 4 workers that exit after 100 ms, restarted for a while, then deleted; the
  // daemons measured once idle again (what a crash loop at night leaves behind by morning).
  const burstMs = ctx.pick(60_000, 20_000)
  const burstArgs = ['start', app('crash-loop.js'), '-i', '4', '-n', 'burst', '--min-uptime', '50', '--max-restarts', '1000000']
  await sup.sup(burstArgs)
  await pm2?.pm2(burstArgs)
  await sleep(burstMs)
  await sup.sup(['delete', 'burst'])
  await pm2?.pm2(['delete', 'burst'])
  // V8's memory reducer shrinks an idle heap ~30 s after its last major GC: measure past it,
  // what stays, not what is on its way out.
  await sleep(45_000)
  daemon.sup.afterBurst = rss(supPid)
  if (pm2Pid) daemon.pm2.afterBurst = rss(pm2Pid)
  rows.push([`daemon: sup, 20 apps, idle after a ${burstMs / 1000} s crash loop`, mib(daemon.sup.afterBurst), ''])
  if (pm2Pid) rows.push([`daemon: PM2, 20 apps, idle after a ${burstMs / 1000} s crash loop`, mib(daemon.pm2.afterBurst), ''])
  targets.push(
    target('sup daemon RSS, 0 apps (MiB)', daemon.sup.apps0 / MiB, '<=', 45, `${mib(daemon.sup.apps0)} MiB`),
    target('sup daemon RSS, 20 apps (MiB)', daemon.sup.apps20 / MiB, '<=', 48, `${mib(daemon.sup.apps20)} MiB`)
  )
  return { header: ['process', 'RSS MiB (median)', 'vs plain node'], rows, figures: { worker, workerRuns: workerRss, daemon }, targets }
}
