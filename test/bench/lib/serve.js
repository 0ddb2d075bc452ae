// Put one contender up serving a script with N workers on a port of its own.
import { freePort, waitForPids } from './procs.js'
import { pm2Home, startPlain, startPrimary, supHome } from './sides.js'

/**
 * @typedef {'primary' | 'primary-none' | 'plain' | 'sup' | 'sup-os' | 'sup-fork' | 'sup-sticky' | 'sup-least' | 'pm2'} Side
 * @typedef {{ side: Side, port: number, pids: number[], stop: () => Promise<void>, daemonPid: number | null, home?: string }} Served
 */

/** What each side is, in a table's words. */
export const LABELS = /** @type {Record<Side, string>} */ ({
  primary: 'hand-written primary (SCHED_RR)',
  'primary-none': 'hand-written primary (SCHED_NONE)',
  plain: 'plain node app.js',
  sup: 'sup',
  'sup-os': 'sup, SUP_BALANCE=os',
  'sup-fork': 'sup, fork mode',
  'sup-sticky': 'sup --sticky',
  'sup-least': 'sup --balance least-conn',
  pm2: 'PM2'
})

/** The sup sides, and the flags each starts its app with. */
const SUP_FLAGS = /** @type {Record<string, string[]>} */ ({ sup: [], 'sup-os': [], 'sup-fork': [], 'sup-sticky': ['--sticky'], 'sup-least': ['--balance', 'least-conn'] })

/**
 * @param {import('../run.js').BenchContext} ctx
 * @param {Side} side
 * @param {{ script: string, workers?: number, name?: string }} options
 * @returns {Promise<Served>}
 */
export async function serve (ctx, side, { script, workers = 2, name = 'bench' }) {
  const port = await freePort()
  if (side === 'primary' || side === 'primary-none') {
    const proc = startPrimary(ctx, { script, port, workers, sched: side === 'primary' ? 'rr' : 'none' })
    const pids = await waitForPids(port, { count: workers })
    return { side, port, pids, stop: proc.stop, daemonPid: proc.pid }
  }
  if (side === 'plain') {
    const proc = startPlain(ctx, { script, port })
    const pids = await waitForPids(port, { count: 1 })
    return { side, port, pids, stop: () => proc.stop(), daemonPid: null }
  }
  if (side in SUP_FLAGS) {
    const home = supHome(ctx, side === 'sup-os' ? { SUP_BALANCE: 'os' } : {})
    const scale = side === 'sup-fork' ? [] : ['-i', String(workers)]
    const started = await home.sup(['start', script, ...scale, '--name', name, ...SUP_FLAGS[side]], { PORT: String(port) })
    if (started.code !== 0) throw new Error(`sup start failed: ${started.stderr}`)
    // Sticky keeps one client address (the probes') on one worker: the others are not seen.
    const pids = await waitForPids(port, { count: side === 'sup-sticky' ? 1 : workers })
    return { side, port, pids, stop: () => home.close(), daemonPid: home.daemonPid(), home: home.home }
  }
  const home = pm2Home(ctx)
  const started = await home.pm2(['start', script, '-i', String(workers), '--name', name], { PORT: String(port) })
  if (started.code !== 0) throw new Error(`pm2 start failed: ${started.stderr || started.stdout}`)
  const pids = await waitForPids(port, { count: workers })
  return { side, port, pids, stop: () => home.close(), daemonPid: home.daemonPid(), home: home.home }
}

/**
 * Does this sup daemon run with OS balancing? (SUP_BALANCE=os, shown by `sup ping --json`.)
 * @param {import('../run.js').BenchContext} ctx
 */
export async function supHasBalanceOs (ctx) {
  const home = supHome(ctx, { SUP_BALANCE: 'os' })
  const ping = await home.sup(['ping', '--json'])
  await home.close()
  try {
    return JSON.parse(ping.stdout).balance === 'os'
  } catch {
    return false
  }
}
