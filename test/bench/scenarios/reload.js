// Failed requests while `sup reload` replaces the workers of a loaded app (keep-alive and
// new-connection load). The floor is 0. Runs once `sup reload` is on main.
import { cliHasCommand } from '../lib/features.js'
import { runLoad } from '../lib/load.js'
import { target } from '../lib/report.js'
import { LABELS, serve, supHasBalanceOs } from '../lib/serve.js'
import { app, PM2_BIN, SUP_BIN } from '../lib/sides.js'
import { runCommand, sleep } from '../lib/procs.js'
import { fmt } from '../lib/stats.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  if (!(await cliHasCommand('reload'))) return { unavailable: '`sup --help` lists no reload command on this checkout' }
  /** @type {import('../lib/serve.js').Side[]} */
  const sides = ['sup', ...(await supHasBalanceOs(ctx) ? /** @type {const} */ (['sup-os']) : []), ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])]
  const seconds = ctx.pick(8, 4)
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {Record<string, unknown>} */
  const figures = {}
  const targets = []
  for (const close of [false, true]) {
    for (const side of sides) {
      const served = await serve(ctx, side, { script: app('hello.js'), name: 'rl' })
      const home = side === 'pm2' ? { bin: PM2_BIN, env: { PM2_HOME: served.home } } : { bin: SUP_BIN, env: { SUP_HOME: served.home } }
      const load = runLoad({ loader: ctx.loader, port: served.port, connections: 32, seconds, close })
      let reloads = 0
      let reloadFailures = 0
      const end = performance.now() + (seconds - 1) * 1000
      await sleep(500)
      while (performance.now() < end) {
        const r = await runCommand(process.execPath, [home.bin, 'reload', 'rl'], { env: { ...process.env, ...home.env } })
        reloads++
        if (r.code !== 0) reloadFailures++
      }
      const result = await load
      await served.stop()
      const failed = result.errors + result.non2xx
      const kind = close ? 'new connection per request' : 'keep-alive'
      rows.push([kind, LABELS[side], reloads, reloadFailures, fmt(result.requests), failed])
      figures[`${side}-${close ? 'close' : 'keepalive'}`] = { reloads, reloadFailures, ...result }
      if (side !== 'pm2') targets.push(target(`${LABELS[side]}: failed requests during reloads (${kind})`, failed, '<=', 0, String(failed)))
    }
  }
  return { header: ['load', 'side', 'reloads', 'reloads failed', 'requests', 'failed requests'], rows, figures, targets }
}
