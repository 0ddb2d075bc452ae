// `start -i 2` → both workers answering, and stop → every worker pid gone, against plain
// `node app.js` and the hand-written primary (and PM2). The supervisors' daemons are up.
import { join } from 'node:path'
import { connect } from '../../../ipc/transport.js'
import { PROTOCOL_VERSION } from '../../../ipc/methods.js'
import { freePort, waitForGone, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { LABELS } from '../lib/serve.js'
import { app, pm2Home, startPlain, startPrimary, supHome } from '../lib/sides.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const script = app('hello.js')
  const sup = supHome(ctx)
  const pm2 = ctx.pm2 ? pm2Home(ctx) : null
  await sup.sup(['ping'])
  await pm2?.pm2(['ping'])

  /** @type {Record<string, (port: number) => Promise<{ pids: number[], stop: () => Promise<unknown> }>>} */
  const starters = {
    plain: async (port) => {
      const proc = startPlain(ctx, { script, port })
      return { pids: await waitForPids(port), stop: () => { process.kill(proc.pid, 'SIGINT'); return proc.exited } }
    },
    primary: async (port) => {
      const proc = startPrimary(ctx, { script, port })
      return { pids: await waitForPids(port, { count: 2 }), stop: () => { process.kill(proc.pid, 'SIGINT'); return proc.exited } }
    },
    sup: async (port) => {
      const r = await sup.sup(['start', script, '-i', '2', '--name', 'lc'], { PORT: String(port) })
      if (r.code !== 0) throw new Error(`sup start: ${r.stderr}`)
      return { pids: await waitForPids(port, { count: 2 }), stop: () => sup.sup(['delete', 'lc']) }
    },
    // The same, stopped over a socket connection opened beforehand: the daemon's part of a
    // delete, without the CLI's own start-up (measured by the cli scenario).
    'sup-rpc': async (port) => {
      const r = await sup.sup(['start', script, '-i', '2', '--name', 'lc'], { PORT: String(port) })
      if (r.code !== 0) throw new Error(`sup start: ${r.stderr}`)
      const pids = await waitForPids(port, { count: 2 })
      const conn = await connect(join(sup.home, 'sup.sock'))
      await conn.request('hello', { protocol: PROTOCOL_VERSION })
      return { pids, stop: async () => { await conn.request('app.delete', { targets: ['lc'] }); await conn.close() } }
    },
    ...(pm2
      ? {
          pm2: async (/** @type {number} */ port) => {
            await pm2.pm2(['start', script, '-i', '2', '--name', 'lc'], { PORT: String(port) })
            return { pids: await waitForPids(port, { count: 2 }), stop: () => pm2.pm2(['delete', 'lc']) }
          }
        }
      : {})
  }
  const sides = Object.keys(starters)
  const results = await interleave(ctx, sides, ctx.pick(7, 3), async (side) => {
    const port = await freePort()
    let t0 = performance.now()
    const { pids, stop } = await starters[side](port)
    const start = performance.now() - t0
    t0 = performance.now()
    await stop()
    await waitForGone(pids)
    return { start, stop: performance.now() - t0 }
  })
  const startMs = Object.fromEntries(sides.map((s) => [s, median(results[s].map((r) => r.start))]))
  const stopMs = Object.fromEntries(sides.map((s) => [s, median(results[s].map((r) => r.stop))]))
  const label = (/** @type {string} */ s) => s === 'sup-rpc' ? 'sup, delete over an open socket' : s === 'sup' ? 'sup, sup delete (CLI)' : LABELS[/** @type {import('../lib/serve.js').Side} */ (s)]
  const rows = sides.map((s) => [label(s), fmt(startMs[s], 1), times(ratio(startMs[s], startMs.primary)), fmt(stopMs[s], 1)])
  return {
    header: ['side', 'start → all answer (ms)', 'vs primary', 'stop → pids gone (ms)'],
    rows,
    figures: { startMs, stopMs, runs: results },
    targets: [
      target('sup start / hand-written primary', ratio(startMs.sup, startMs.primary), '<=', 1.2, times(ratio(startMs.sup, startMs.primary))),
      target('sup delete of a cooperative app, daemon side', stopMs['sup-rpc'], '<=', 30, `${fmt(stopMs['sup-rpc'], 1)} ms`)
    ]
  }
}
