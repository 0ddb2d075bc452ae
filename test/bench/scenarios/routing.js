// What sup's own routing costs (sticky sessions, balance least-conn: docs/realtime.md), against
// the daemon's default round-robin in the same run: req/s of the hello app with -i 2, on
// keep-alive connections (the daemon routes each connection once) and with a new connection
// per request (it routes every request: the cost is all there), and the daemon's CPU while it
// does. Sticky is measured twice: socket.io handshakes (`?EIO=4`, a new session each, placed
// by least-conn, so both workers serve) and plain requests from one client address, which
// sticky keeps on one worker (what a load test from one machine sees). The daemon's CPU is
// given per second and per 1000 requests.
import { runLoad } from '../lib/load.js'
import { cpuTime } from '../lib/procs.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'
import { LABELS, serve } from '../lib/serve.js'
import { app } from '../lib/sides.js'

/** Each row: the side served, and the request path the load sends. */
const ROWS = /** @type {const} */ ([
  { row: 'rr', side: 'sup', path: '/' },
  { row: 'least-conn', side: 'sup-least', path: '/' },
  { row: 'sticky, socket.io handshakes', side: 'sup-sticky', path: '/?EIO=4&transport=polling' },
  { row: 'sticky, one client address', side: 'sup-sticky', path: '/' }
])

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const seconds = ctx.pick(4, 2)
  const rounds = ctx.pick(3, 2)
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {Record<string, unknown>} */
  const figures = { seconds, rounds, loader: ctx.loader, workers: 2 }
  const sides = [...new Set(ROWS.map((r) => r.side))]
  const served = []
  for (const side of sides) served.push(await serve(ctx, side, { script: app('hello.js') }))
  const bySide = Object.fromEntries(served.map((s) => [s.side, s]))
  try {
    for (const close of [false, true]) {
      const connections = close ? 32 : 64
      const names = ROWS.map((r) => r.row)
      for (const r of ROWS) await runLoad({ loader: ctx.loader, port: bySide[r.side].port, connections, seconds: 1, close, path: r.path })
      ctx.log(`${close ? 'new connection per request' : 'keep-alive'}: ${rounds} round(s) of ${seconds} s per row`)
      const results = await interleave(ctx, names, rounds, async (name) => {
        const r = /** @type {typeof ROWS[number]} */ (ROWS.find((x) => x.row === name))
        const daemon = /** @type {number} */ (bySide[r.side].daemonPid)
        const before = cpuTime(daemon)
        const started = performance.now()
        const load = await runLoad({ loader: ctx.loader, port: bySide[r.side].port, connections, seconds, close, path: r.path })
        const spent = cpuTime(daemon) - before
        // Per request as well as per second: on a busy machine req/s moves with the neighbours,
        // the daemon's CPU time per request much less.
        return { ...load, daemonCpu: spent / (performance.now() - started), daemonMsPerK: load.requests > 0 ? spent / load.requests * 1000 : NaN }
      })
      const mode = close ? 'new connection per request' : 'keep-alive'
      const rps = Object.fromEntries(names.map((n) => [n, median(results[n].map((x) => x.rps))]))
      const cpu = Object.fromEntries(names.map((n) => [n, median(results[n].map((x) => x.daemonCpu))]))
      const perK = Object.fromEntries(names.map((n) => [n, median(results[n].map((x) => x.daemonMsPerK))]))
      for (const n of names) {
        const failed = results[n].reduce((sum, x) => sum + x.errors + x.non2xx, 0)
        rows.push([mode, n, fmt(rps[n]), n === 'rr' ? '1.00×' : times(ratio(rps[n], rps.rr)), `${fmt(cpu[n] * 100)} %`, fmt(perK[n], 1), n === 'rr' ? '1.00×' : times(ratio(perK[n], perK.rr)), failed, results[n].map((x) => fmt(x.rps)).join(' ')])
      }
      figures[close ? 'close' : 'keepAlive'] = { connections, rps, daemonCpu: cpu, daemonMsPer1000Requests: perK, runs: Object.fromEntries(names.map((n) => [n, results[n].map((x) => x.rps)])) }
    }
  } finally {
    for (const s of served) await s.stop()
  }
  figures.sides = Object.fromEntries(sides.map((s) => [s, LABELS[s]]))
  return { header: ['load', 'routing', 'req/s (median)', 'vs rr', 'daemon CPU', 'daemon CPU ms / 1000 req', 'vs rr', 'failed', 'rounds'], rows, figures }
}
