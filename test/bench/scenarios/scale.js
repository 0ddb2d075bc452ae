// Many apps: 1, 25, 50 and 100 one-worker apps (an ecosystem file), and one app with `-i 64`.
// For each size, on a fresh daemon: `start` → every app answers HTTP, `ls` wall time against
// `node -e 0` (interleaved), the daemon's RSS and its CPU while the apps idle (1 s stats).
// PM2 alongside when installed. The slope between sizes says whether a figure grows
// linearly or worse.
import { freemem } from 'node:os'
import { writeEcosystem } from '../lib/ecosystem.js'
import { cpuTime, freePort, rss, runCommand, sleep, startProcess, waitForPids } from '../lib/procs.js'
import { target } from '../lib/report.js'
import { app, pm2Home, supHome } from '../lib/sides.js'
import { fmt, interleave, median, mib, ratio, times } from '../lib/stats.js'

const MiB = 1024 * 1024

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const sizes = ctx.pick([1, 25, 50, 100], [1, 25, 100])
  const sides = ['sup', ...(ctx.pm2 ? ['pm2'] : [])]
  const lsRounds = ctx.pick(9, 5)
  const cpuSeconds = ctx.pick(5, 3)
  /** @type {Record<string, Record<string, { startMs: number, lsMs: number, nodeMs: number, rss: number, cpu: number }>>} */
  const bySide = Object.fromEntries(sides.map((s) => [s, {}]))
  /** @type {(string | number)[][]} */
  const rows = []

  for (const shape of [...sizes.map((n) => ({ apps: n, instances: 1 })), { apps: 1, instances: 64 }]) {
    const label = shape.instances > 1 ? `1 app -i ${shape.instances}` : `${shape.apps} apps`
    for (const side of sides) {
      if (ctx.outOfTime()) {
        ctx.note(`${label}, ${side}: skipped, time budget spent`)
        continue
      }
      // Each process of hello.js takes ~45 MiB: do not push a shared machine into swap.
      const need = (shape.apps * shape.instances + 2) * 60 * MiB
      if (freemem() < need) {
        ctx.note(`${label}, ${side}: skipped, ${mib(freemem())} MiB free, about ${mib(need)} needed`)
        continue
      }
      ctx.log(`${label}: ${side}`)
      let figure
      try {
        figure = await measureSize(ctx, side, shape, { lsRounds, cpuSeconds })
      } catch (err) {
        ctx.note(`${label}, ${side}: ${/** @type {Error} */ (err).message}`)
        rows.push([label, side === 'sup' ? 'sup' : 'PM2', 'failed', '', '', '', '', ''])
        continue
      }
      bySide[side][label] = figure
      rows.push([label, side === 'sup' ? 'sup' : 'PM2', fmt(figure.startMs), fmt(figure.lsMs, 1), fmt(figure.nodeMs, 1), times(ratio(figure.lsMs, figure.nodeMs)), mib(figure.rss), `${fmt(figure.cpu, 3)} %`])
    }
  }

  // The floor: the same N apps as plain `node app.js`, all spawned at once by this process (no
  // supervisor, no CLI), until each answers. What N Node start-ups cost on this machine.
  /** @type {Record<string, number>} */
  const floorMs = {}
  for (const n of sizes) {
    if (ctx.outOfTime()) break
    floorMs[`${n} apps`] = await measureFloor(n)
    rows.push([`${n} apps`, 'node app.js × N (floor)', fmt(floorMs[`${n} apps`]), '', '', '', '', ''])
  }

  // Slopes: per app between consecutive sizes, so a figure growing worse than linearly shows.
  /** @type {Record<string, Record<string, number[]>>} */
  const slopes = {}
  for (const side of sides) {
    slopes[side] = { startMsPerApp: [], lsMsPerApp: [], rssKiBPerApp: [], cpuPercentPerApp: [] }
    for (let i = 1; i < sizes.length; i++) {
      const a = bySide[side][`${sizes[i - 1]} apps`]
      const b = bySide[side][`${sizes[i]} apps`]
      if (!a || !b) continue
      const d = sizes[i] - sizes[i - 1]
      slopes[side].startMsPerApp.push((b.startMs - a.startMs) / d)
      slopes[side].lsMsPerApp.push((b.lsMs - b.nodeMs - (a.lsMs - a.nodeMs)) / d)
      slopes[side].rssKiBPerApp.push((b.rss - a.rss) / 1024 / d)
      slopes[side].cpuPercentPerApp.push((b.cpu - a.cpu) / d)
    }
    const s = slopes[side]
    ctx.note(`${side} slopes per app, between sizes ${sizes.join(' → ')}: start ${s.startMsPerApp.map((v) => fmt(v, 1)).join(', ')} ms; ls (minus node -e 0) ${s.lsMsPerApp.map((v) => fmt(v, 2)).join(', ')} ms; RSS ${s.rssKiBPerApp.map((v) => fmt(v)).join(', ')} KiB; idle CPU ${s.cpuPercentPerApp.map((v) => fmt(v, 4)).join(', ')} % of a core`)
  }

  const sup = bySide.sup
  const top = sup[`${sizes.at(-1)} apps`]
  const targets = []
  if (top) {
    targets.push(
      target(`sup start ${sizes.at(-1)} apps → all answer (ms)`, top.startMs, '<=', 2000, `${fmt(top.startMs)} ms`),
      target(`sup ls, ${sizes.at(-1)} apps / node -e 0`, ratio(top.lsMs, top.nodeMs), '<=', 1.2, times(ratio(top.lsMs, top.nodeMs))),
      target(`sup daemon RSS, ${sizes.at(-1)} apps (MiB)`, top.rss / MiB, '<=', 55, `${mib(top.rss)} MiB`)
    )
    // Linear or better: the last step's cost per app is not above the first's (50 % slack
    // for a shared machine's noise).
    for (const [name, values] of Object.entries(slopes.sup)) {
      if (values.length < 2) continue
      const grows = values.at(-1) <= Math.max(values[0] * 1.5, values[0] + (name === 'cpuPercentPerApp' ? 0.002 : name === 'rssKiBPerApp' ? 64 : 1))
      targets.push(target(`sup ${name}: last step ≤ first step (linear or better)`, grows ? 1 : 0, '>=', 1, `${fmt(values[0], 3)} → ${fmt(values.at(-1), 3)}`))
    }
  }
  const floorTop = floorMs[`${sizes.at(-1)} apps`]
  if (top && floorTop) ctx.note(`start ${sizes.at(-1)} apps: sup ${fmt(top.startMs)} ms = ${times(ratio(top.startMs, floorTop))} the floor of ${fmt(floorTop)} ms (plain node, spawned at once)`)
  return {
    header: ['size', 'side', 'start → all answer (ms)', 'ls (ms)', 'node -e 0 (ms)', 'ls / node', 'daemon RSS (MiB)', 'daemon CPU, idle'],
    rows,
    figures: { bySide, slopes, sizes, floorMs },
    targets
  }
}

/**
 * Start `shape` on a fresh daemon of `side`, and measure it.
 * @param {import('../run.js').BenchContext} ctx
 * @param {string} side
 * @param {{ apps: number, instances: number }} shape
 * @param {{ lsRounds: number, cpuSeconds: number }} options
 */
async function measureSize (ctx, side, { apps, instances }, { lsRounds, cpuSeconds }) {
  const supSide = side === 'sup' ? supHome(ctx) : null
  const pm2Side = supSide ? null : pm2Home(ctx)
  const home = /** @type {NonNullable<typeof supSide> | NonNullable<typeof pm2Side>} */ (supSide ?? pm2Side)
  /** @param {string[]} args @param {Record<string, string>} [env] */
  const cli = (args, env) => (supSide ? supSide.sup(args, env) : /** @type {NonNullable<typeof pm2Side>} */ (pm2Side).pm2(args, env))
  await cli(['ping'])
  await sleep(500)

  try {
    let ports
    let startArgs
    let env = {}
    if (instances > 1) {
      const port = await freePort()
      ports = [port]
      startArgs = ['start', app('hello.js'), '-i', String(instances), '--name', 'wide']
      env = { PORT: String(port) }
    } else {
      const eco = await writeEcosystem(home.home, app('hello.js'), apps)
      ports = eco.ports
      startArgs = ['start', eco.file]
    }
    const t0 = performance.now()
    const started = await cli(startArgs, env)
    if (started.code !== 0) throw new Error(`${side} start exited ${started.code}: ${(started.stderr + started.stdout).trim().replace(/\s*\n\s*/g, ' / ')}`)
    const timeout = 60_000 + apps * instances * 1000
    await Promise.all(ports.map((port) => waitForPids(port, { count: instances, timeout })))
    const startMs = performance.now() - t0

    // Let start-up settle (first stats, JIT, the garbage of N spawns) before the idle figures:
    // 2 s after 100 apps answered, the daemon read 92 MiB and 7.4 % of a core; 20 s after,
    // by hand, 65.6 MiB.
    await sleep(15_000)
    const daemonPid = /** @type {number} */ (home.daemonPid())
    const cpu0 = cpuTime(daemonPid)
    const c0 = performance.now()
    await sleep(cpuSeconds * 1000)
    const cpu = 100 * (cpuTime(daemonPid) - cpu0) / (performance.now() - c0)
    const memory = rss(daemonPid)

    const results = await interleave(ctx, ['node', 'ls'], lsRounds, async (which) => {
      const r = which === 'node' ? await runCommand(process.execPath, ['-e', '0']) : await cli(['ls'])
      if (r.code !== 0) throw new Error(`${side} ${which}: ${r.stderr}`)
      return r.ms
    })
    return { startMs, lsMs: median(results.ls), nodeMs: median(results.node), rss: memory, cpu }
  } finally {
    await home.close()
  }
}

/**
 * N plain `node hello.js` processes spawned at once, each on its own port: ms until every one
 * answers HTTP. Stopped before returning.
 * @param {number} count
 */
async function measureFloor (count) {
  const ports = []
  for (let i = 0; i < count; i++) ports.push(await freePort())
  const t0 = performance.now()
  const procs = ports.map((port) => startProcess(process.execPath, [app('hello.js')], { ...process.env, PORT: String(port) }))
  try {
    await Promise.all(ports.map((port) => waitForPids(port, { timeout: 60_000 + count * 1000 })))
    return performance.now() - t0
  } finally {
    await Promise.all(procs.map((p) => p.stop()))
  }
}
