// Logging load. (1) 4 workers writing 1 KiB lines as fast as they can: MiB/s and lines/s
// reaching the files, the daemon's CPU per MiB, lines lost (each line carries its pid and a
// sequence number, so a missing one is found), against the floor of 4 `node spew.js > file`
// (no supervisor on the path) and PM2. (2) An HTTP app logging one line per request under
// keep-alive load, cluster and fork mode, node and Python (logs-requests.js): its throughput
// with the log against without and against the same app with its stdout on a file.
import { spawn } from 'node:child_process'
import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { cpuTime, isAlive, sleep, waitForGone } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { app, pm2Home, supHome } from '../lib/sides.js'
import { fmt, interleave, median } from '../lib/stats.js'
import { runRequestLog } from './logs-requests.js'

const MiB = 1024 * 1024
const WORKERS = 4
const LINE = 1024

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const rows = []
  const targets = []
  const figures = {}

  // (1) Four workers, 1 KiB lines, as fast as they go.
  const lines = ctx.pick(25_000, 10_000)
  const sides = ['files', 'sup', ...(ctx.pm2 ? ['pm2'] : [])]
  const spews = await interleave(ctx, sides, ctx.pick(3, 1), (side) => spewRound(ctx, side, lines))
  /** @type {Record<string, Record<string, number>>} */
  const spew = {}
  for (const side of sides) {
    const runs = spews[side]
    const m = (/** @type {keyof SpewFigure} */ key) => median(runs.map((r) => r[key]))
    spew[side] = { mibPerS: m('mibPerS'), linesPerS: m('linesPerS'), cpuMsPerMiB: m('cpuMsPerMiB'), lost: Math.max(...runs.map((r) => r.lost)), dropped: Math.max(...runs.map((r) => r.dropped)) }
    const s = spew[side]
    rows.push([`4 workers × ${lines.toLocaleString('en-US')} lines of 1 KiB`, side === 'files' ? 'node spew.js > file (floor)' : side === 'sup' ? 'sup' : 'PM2',
      fmt(s.mibPerS, 1), fmt(s.linesPerS), side === 'files' ? '—' : `${fmt(s.cpuMsPerMiB, 2)} ms (${fmt(1000 / s.cpuMsPerMiB)} MiB per CPU-s)`, `${s.lost} lost, ${s.dropped} dropped`])
  }
  figures.spew = { lines, medians: spew, runs: spews }
  const supMiBPerCpuS = 1000 / spew.sup.cpuMsPerMiB
  targets.push(
    target('sup daemon: MiB of log per CPU-second (≥ 100 MiB/s on one core)', supMiBPerCpuS, '>=', 100, `${fmt(supMiBPerCpuS)} MiB/s`),
    target('sup lines lost, not counted as dropped', Math.max(...spews.sup.map((r) => r.lost - r.dropped)), '<=', 0, String(Math.max(...spews.sup.map((r) => r.lost - r.dropped))))
  )

  // (2) Request logging under load: cluster and fork mode, node and Python, against the floor.
  await runRequestLog(ctx, { rows, targets, figures })
  ctx.note('lines lost = lines missing from the files; dropped = lines the backpressure policy dropped and counted (docs/logs.md). For the HTTP app, lost = requests answered − lines in the files, so a request still in flight when the load stops counts as logged. The floor of the HTTP app is the same app with its stdout on a file: under a hand-written node:cluster primary whose workers inherit it (cluster), or `app > file` (fork).')
  return { header: ['load', 'side', 'MiB/s · req/s', 'lines/s · lines', 'daemon CPU', 'lines lost'], rows, figures, targets }
}

/**
 * @typedef {{ mibPerS: number, linesPerS: number, cpuMsPerMiB: number, lost: number, dropped: number }} SpewFigure
 */

/**
 * One round: WORKERS spew.js writing `lines` lines each, until every byte is in the files.
 * @param {import('../run.js').BenchContext} ctx
 * @param {string} side
 * @param {number} lines
 * @returns {Promise<SpewFigure>}
 */
async function spewRound (ctx, side, lines) {
  const total = WORKERS * lines * LINE
  const env = { LINES: String(lines) }
  /** @type {string} */
  let dir
  /** @type {number | null} */
  let daemonPid = null
  /** @type {() => Promise<void>} */
  let stop
  /** @type {() => Promise<number>} */
  let dropped = async () => 0
  let t0
  let cpu0 = 0
  if (side === 'files') {
    dir = mkdtempSync(join(tmpdir(), 'sup-bench-logs-'))
    t0 = performance.now()
    const children = []
    for (let i = 0; i < WORKERS; i++) {
      const fd = openSync(join(dir, `spew-out-${i}.log`), 'a')
      children.push(spawn(process.execPath, [app('spew.js')], { env: { ...process.env, ...env }, stdio: ['ignore', fd, 'ignore'], detached: true }))
      closeSync(fd)
    }
    stop = async () => {
      const pids = children.map((c) => /** @type {number} */ (c.pid))
      for (const pid of pids) { try { process.kill(pid, 'SIGKILL') } catch {} }
      await waitForGone(pids)
      rmSync(dir, { recursive: true, force: true })
    }
    ctx.defer(stop)
  } else {
    const sup = side === 'sup' ? supHome(ctx) : null
    const pm2 = sup ? null : pm2Home(ctx)
    const home = /** @type {NonNullable<typeof sup> | NonNullable<typeof pm2>} */ (sup ?? pm2)
    /** @param {string[]} args @param {Record<string, string>} [more] */
    const cli = (args, more) => (sup ? sup.sup(args, more) : /** @type {NonNullable<typeof pm2>} */ (pm2).pm2(args, more))
    await cli(['ping'])
    dir = join(home.home, 'logs')
    daemonPid = home.daemonPid()
    await sleep(500)
    cpu0 = daemonPid ? cpuTime(daemonPid) : 0
    t0 = performance.now()
    // Rotation stays at sup's default (10 MiB): it is part of what the daemon does per MiB.
    const started = await cli(['start', app('spew.js'), '-i', String(WORKERS), '--name', 'spew'], env)
    if (started.code !== 0) throw new Error(`${side} start: ${started.stderr || started.stdout}`)
    stop = () => home.close()
    if (sup) {
      dropped = async () => {
        const rowsOut = JSON.parse((await sup.sup(['ls', '--json'])).stdout)
        return rowsOut.reduce((/** @type {number} */ n, /** @type {{ log_dropped_lines?: number }} */ r) => n + (r.log_dropped_lines ?? 0), 0)
      }
    }
  }
  // Wait for every byte, polling sizes (live and rotated files).
  const deadline = performance.now() + 180_000
  let first = NaN
  let last = NaN
  let size = 0
  let settledAt = performance.now()
  while (performance.now() < deadline) {
    const now = bytesIn(dir, 'spew-out')
    const at = performance.now()
    if (now > 0 && Number.isNaN(first)) first = at
    if (now !== size) { size = now; settledAt = at; last = at }
    if (size >= total) break
    if (size > 0 && at - settledAt > 5000) break // nothing more for 5 s: count what is missing
    await sleep(5)
  }
  const cpuMs = daemonPid && isAlive(daemonPid) ? cpuTime(daemonPid) - cpu0 : NaN
  const found = countSpewLines(dir)
  const droppedLines = await dropped()
  await stop()
  ctx.log(`${side}: ${(size / MiB).toFixed(1)} MiB in ${((last - first) / 1000).toFixed(2)} s from the first byte (${((last - t0) / 1000).toFixed(2)} s from start)`)
  const seconds = (last - first) / 1000
  return {
    mibPerS: size / MiB / seconds,
    linesPerS: found / seconds,
    cpuMsPerMiB: cpuMs / (size / MiB),
    lost: WORKERS * lines - found,
    dropped: droppedLines
  }
}

/** Bytes in the files of `dir` whose name starts with `prefix`. @param {string} dir @param {string} prefix */
function bytesIn (dir, prefix) {
  let sum = 0
  let names = []
  try { names = readdirSync(dir) } catch { return 0 }
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    try { sum += statSync(join(dir, name)).size } catch {} // renamed by a rotation meanwhile
  }
  return sum
}

/** Distinct (pid, seq) lines of spew.js in the files of `dir`. @param {string} dir */
function countSpewLines (dir) {
  /** @type {Map<string, Set<number>>} */
  const seen = new Map()
  for (const name of safeList(dir)) {
    if (!name.startsWith('spew-out')) continue
    for (const line of readFileSync(join(dir, name), 'latin1').split('\n')) {
      const m = /^(?:\S+: )?(\d+) (\d+) x/.exec(line)
      if (!m) continue
      let set = seen.get(m[1])
      if (!set) seen.set(m[1], set = new Set())
      set.add(Number(m[2]))
    }
  }
  let n = 0
  for (const set of seen.values()) n += set.size
  return n
}

/** @param {string} dir */
function safeList (dir) {
  try { return readdirSync(dir) } catch { return [] }
}
