// Failed requests while `sup reload` replaces the workers of a loaded app (keep-alive and
// new-connection load). The floor is 0. Runs once `sup reload` is on main.
import { spawnSync } from 'node:child_process'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { cliHasCommand } from '../lib/features.js'
import { runLoad } from '../lib/load.js'
import { target } from '../lib/report.js'
import { LABELS, serve, supHasBalanceOs } from '../lib/serve.js'
import { app, PM2_BIN, SUP_BIN, supHome } from '../lib/sides.js'
import { freePort, runCommand, sleep, waitForPids } from '../lib/procs.js'
import { fmt } from '../lib/stats.js'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))

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
      rows.push([kind, LABELS[side], reloads, reloadFailures, fmt(result.requests), failed, '-'])
      figures[`${side}-${close ? 'close' : 'keepalive'}`] = { reloads, reloadFailures, ...result }
      if (side !== 'pm2') targets.push(target(`${LABELS[side]}: failed requests during reloads (${kind})`, failed, '<=', 0, String(failed)))
    }
  }
  await forkMode(ctx, { seconds, rows, figures, targets })
  return { header: ['load', 'side', 'reloads', 'reloads failed', 'requests', 'failed requests', 'reload ms (median)'], rows, figures, targets }
}

/**
 * Fork mode on sockets the daemon holds (`listen`): a plain `node app.js` and a Python
 * server taking LISTEN_FDS, 3 reloads each under load. Skipped on a checkout without `listen`.
 * @param {import('../run.js').BenchContext} ctx
 * @param {{ seconds: number, rows: (string | number)[][], figures: Record<string, unknown>, targets: unknown[] }} out
 */
async function forkMode (ctx, { seconds, rows, figures, targets }) {
  if (!existsSync(join(ROOT, 'ipc', 'listen.js'))) return
  const python = pythonPath()
  const apps = [
    { label: 'sup, fork mode + listen: node app.js', key: 'fork-node', entry: { script: app('hello.js') } },
    ...(python ? [{ label: 'sup, fork mode + listen: python http.server', key: 'fork-python', entry: { script: join(ROOT, 'test', 'fixtures', 'apps', 'fd-server.py'), interpreter: python, min_uptime: 300 } }] : [])
  ]
  for (const close of [false, true]) {
    for (const { label, key, entry } of apps) {
      const home = supHome(ctx)
      const port = await freePort()
      const file = join(home.home, 'apps.json')
      writeFileSync(file, JSON.stringify({ apps: [{ name: 'rl', ...entry, listen: [`127.0.0.1:${port}`], env: { PORT: String(port) } }] }))
      const started = await home.sup(['start', file])
      if (started.code !== 0) throw new Error(`sup start failed: ${started.stderr}`)
      await waitForPids(port, { count: 1 })
      const load = runLoad({ loader: ctx.loader, port, connections: 32, seconds, close })
      await sleep(500)
      /** @type {number[]} */
      const times = []
      let reloadFailures = 0
      for (let i = 0; i < 3; i++) {
        const r = await home.sup(['reload', 'rl', '--json'])
        if (r.code !== 0) reloadFailures++
        else times.push(JSON.parse(r.stdout).apps[0].ms)
      }
      const result = await load
      await home.close()
      const failed = result.errors + result.non2xx
      const kind = close ? 'new connection per request' : 'keep-alive'
      const ms = times.length > 0 ? [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)] : '-'
      rows.push([kind, label, 3, reloadFailures, fmt(result.requests), failed, ms])
      figures[`${key}-${close ? 'close' : 'keepalive'}`] = { reloads: 3, reloadFailures, reloadMs: times, ...result }
      targets.push(target(`${label}: failed requests during 3 reloads (${kind})`, failed, '<=', 0, String(failed)))
    }
  }
}

/** The real python3 (not a version manager's shim), or null when there is none. */
function pythonPath () {
  const found = spawnSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' })
  return found.status === 0 ? found.stdout.trim() : null
}
