// The logs scenario's second part: an HTTP app logging one line per request under keep-alive
// load, with the log and without, in three setups: node in cluster mode (2 workers), node in
// fork mode and a Python app (1 process each). Against the floor of each setup (the same app
// with its stdout on a file: a hand-written node:cluster primary whose workers inherit it, or
// `app > file`: no supervisor on the log path) and PM2. Each setup's sides run interleaved.
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { runLoad } from '../lib/load.js'
import { cpuTime, freePort, isAlive, sleep, waitForGone, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { app, pm2Home, supHome, treeOf } from '../lib/sides.js'
import { fmt, interleave, median, ratio, times } from '../lib/stats.js'

/**
 * @typedef {{ key: string, label: string, script: string, workers: number, interpreter: string | null }} Setup
 * @typedef {{ port: number, daemonPid: number | null, workerPids: number[], logs: string, stop: () => Promise<void> }} Up
 */

/** @type {Setup[]} */
const SETUPS = [
  { key: 'cluster', label: 'node, cluster mode, 2 workers', script: 'hello-log.js', workers: 2, interpreter: null },
  { key: 'fork', label: 'node, fork mode', script: 'hello-log.js', workers: 1, interpreter: null },
  { key: 'python', label: 'Python, fork mode', script: 'hello-log.py', workers: 1, interpreter: 'python3' }
]
const NAME = 'reqlog'
/** /proc/<pid>/stat counts CPU in clock ticks of 10 ms (USER_HZ = 100 on Linux). */
const TICK_MS = 10

/**
 * @param {import('../run.js').BenchContext} ctx
 * @param {{ rows: (string | number)[][], targets: ReturnType<typeof target>[], figures: Record<string, unknown> }} out
 */
export async function runRequestLog (ctx, { rows, targets, figures }) {
  for (const setup of SETUPS) {
    if (ctx.outOfTime() && setup.key !== 'cluster') {
      ctx.note(`request log, ${setup.label}: skipped, time budget spent`)
      continue
    }
    const kinds = ['floor', 'sup', ...(ctx.pm2 ? ['pm2'] : [])]
    // PM2 without a log only where the issue measured it: PM2's own cost is not the question.
    const sides = kinds.flatMap((kind) => (kind === 'pm2' && setup.key !== 'cluster' ? [`${kind}-log`] : [`${kind}-nolog`, `${kind}-log`]))
    const req = await measureSetup(ctx, setup, sides)
    for (const side of sides) {
      const r = req[side]
      const log = side.endsWith('-log')
      const base = req[side.replace('-log', '-nolog')]
      const kind = side.split('-')[0]
      rows.push([`HTTP, ${setup.label}, ${log ? 'a log line per request' : 'no log'}`, kind === 'floor' ? 'stdout on a file (floor)' : kind === 'sup' ? 'sup' : 'PM2',
        `${fmt(r.rps)} req/s${log && base ? ` (${times(ratio(r.rps, base.rps))} of no log)` : ''}`, log ? `${fmt(r.lines)} lines` : '—',
        `${Number.isFinite(r.cpu) ? `${kind === 'floor' ? 'primary' : 'daemon'} ${fmt(r.cpu, 1)} % CPU; ` : ''}${fmt(r.usPerRequest, 1)} µs CPU/req`,
        log ? `${Math.max(0, r.requests - r.lines)} lost (${fmt(r.requests)} answered)` : ''])
    }
    figures[`requestLog-${setup.key}`] = req
    const sup = req['sup-log']
    targets.push(
      target(`${setup.key}: sup throughput with a request log / without`, ratio(sup.rps, req['sup-nolog'].rps), '>=', 0.9, times(ratio(sup.rps, req['sup-nolog'].rps))),
      target(`${setup.key}: sup / the floor (stdout on a file), with a request log`, ratio(sup.rps, req['floor-log'].rps), '>=', 0.95, times(ratio(sup.rps, req['floor-log'].rps))),
      target(`${setup.key}: sup request log lines lost`, Math.max(0, sup.requests - sup.lines), '<=', 0, String(Math.max(0, sup.requests - sup.lines)))
    )
    if (ctx.pm2) targets.push(target(`${setup.key}: sup / PM2 throughput with a request log`, ratio(sup.rps, req['pm2-log'].rps), '>=', 1.8, times(ratio(sup.rps, req['pm2-log'].rps))))
  }
}

/**
 * Bring every side of a setup up, load them in turns, then count the lines they wrote.
 * @param {import('../run.js').BenchContext} ctx
 * @param {Setup} setup
 * @param {string[]} sides
 */
async function measureSetup (ctx, setup, sides) {
  /** @type {Record<string, { up: Up, requests: number }>} */
  const live = {}
  for (const side of sides) live[side] = { up: await bringUp(ctx, setup, side), requests: 0 }
  const seconds = ctx.pick(4, 2)
  const runs = await interleave(ctx, sides, ctx.pick(3, 2), async (side) => {
    const { up } = live[side]
    live[side].requests += (await runLoad({ loader: ctx.loader, port: up.port, connections: 32, seconds: 1 })).requests
    const cpu0 = up.daemonPid ? cpuTime(up.daemonPid) : 0
    const all0 = cpuOf(up)
    const t0 = performance.now()
    const result = await runLoad({ loader: ctx.loader, port: up.port, connections: 64, seconds })
    const cpu = up.daemonPid ? 100 * (cpuTime(up.daemonPid) - cpu0) / (performance.now() - t0) : NaN
    // The CPU the whole side spent per request (workers and supervisor): steadier than req/s
    // on a shared machine, where a side's throughput depends on what else runs.
    const usPerRequest = 1000 * (cpuOf(up) - all0) / result.requests
    live[side].requests += result.requests
    return { rps: result.rps, cpu, usPerRequest, errors: result.errors + result.non2xx }
  })
  /** @type {Record<string, { rps: number, cpu: number, usPerRequest: number, lines: number, requests: number, runs: typeof runs[string] }>} */
  const req = {}
  for (const side of sides) {
    // Lines still on their way (a supervisor's buffers, Python's) reach the files.
    await sleep(1000)
    const { up, requests } = live[side]
    req[side] = { rps: median(runs[side].map((r) => r.rps)), cpu: median(runs[side].map((r) => r.cpu)), usPerRequest: median(runs[side].map((r) => r.usPerRequest)), lines: countLines(up.logs, `${NAME}-out`), requests, runs: runs[side] }
    await up.stop()
  }
  return req
}

/**
 * @param {import('../run.js').BenchContext} ctx
 * @param {Setup} setup
 * @param {string} side
 * @returns {Promise<Up>}
 */
async function bringUp (ctx, setup, side) {
  const [kind, log] = side.split('-')
  const port = await freePort()
  const env = { PORT: String(port), LOG: log === 'log' ? '1' : '0' }
  const script = app(setup.script)
  if (kind === 'floor') return startFloor(ctx, setup, script, env)
  const interpreter = setup.interpreter ? ['--interpreter', setup.interpreter] : []
  const scale = setup.key === 'cluster' ? ['-i', String(setup.workers)] : []
  const home = kind === 'sup' ? supHome(ctx) : pm2Home(ctx)
  const args = ['start', script, ...scale, ...interpreter, '--name', NAME]
  const started = 'sup' in home ? await home.sup(args, env) : await home.pm2(args, env)
  if (started.code !== 0) throw new Error(`${side} start: ${started.stderr || started.stdout}`)
  const workerPids = await waitForPids(port, { count: setup.workers })
  return { port, daemonPid: home.daemonPid(), workerPids, logs: join(home.home, 'logs'), stop: () => home.close() }
}

/**
 * The floor: the app with its stdout on a file, under a hand-written primary in cluster mode
 * (its workers inherit the primary's stdout, as Node's cluster does by default).
 * @param {import('../run.js').BenchContext} ctx
 * @param {Setup} setup
 * @param {string} script
 * @param {Record<string, string>} env
 * @returns {Promise<Up>}
 */
async function startFloor (ctx, setup, script, env) {
  const logs = mkdtempSync(join(tmpdir(), 'sup-bench-floor-'))
  const fd = openSync(join(logs, `${NAME}-out.log`), 'a')
  const [file, args] = setup.key === 'cluster'
    ? [process.execPath, [app('primary.cjs')]]
    : [setup.interpreter ?? process.execPath, [script]]
  const child = spawn(file, args, {
    env: { ...process.env, ...env, APP: script, WORKERS: String(setup.workers) },
    stdio: ['ignore', fd, 'ignore'],
    detached: true
  })
  closeSync(fd)
  const stop = async () => {
    const tree = child.pid && isAlive(child.pid) ? treeOf(child.pid) : []
    for (const pid of tree) { try { process.kill(pid, 'SIGKILL') } catch {} }
    await waitForGone(tree)
    rmSync(logs, { recursive: true, force: true })
  }
  ctx.defer(stop)
  const workerPids = await waitForPids(Number(env.PORT), { count: setup.workers })
  return { port: Number(env.PORT), daemonPid: setup.key === 'cluster' ? child.pid ?? null : null, workerPids, logs, stop }
}

/**
 * CPU ms of a side's workers and supervisor so far, from /proc/<pid>/stat: it keeps the time of
 * threads that have ended (Python's server starts one per connection).
 * @param {Up} up
 */
function cpuOf (up) {
  let ticks = 0
  for (const pid of [...up.workerPids, ...(up.daemonPid ? [up.daemonPid] : [])]) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {} // gone: it counts for nothing
  }
  return ticks * TICK_MS
}

/** Lines in the files of `dir` whose name starts with `prefix`. @param {string} dir @param {string} prefix */
function countLines (dir, prefix) {
  let count = 0
  let names = []
  try { names = readdirSync(dir) } catch { return 0 }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const text = readFileSync(join(dir, name), 'latin1')
    for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) count++
  }
  return count
}
