// sup's benchmark suite: `npm run bench` (every scenario) or `npm run bench -- <name> ...`.
// Each scenario runs sup and its floors (and PM2 when installed) interleaved in one run,
// prints a table and writes JSON to bench-results/. See docs/benchmarks.md.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, freemem, loadavg, totalmem } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { pickLoader } from './lib/load.js'
import { renderTable } from './lib/report.js'
import { BENCH, ROOT, pm2Installed } from './lib/sides.js'

/** Scenario modules, in the order a full run takes them. */
const SCENARIOS = ['throughput', 'connection', 'routing', 'crash', 'cli', 'cold-start', 'lifecycle', 'memory', 'idle-cpu', 'reload', 'max-memory', 'scale', 'logs']

/**
 * @typedef {object} BenchContext
 * @property {boolean} quick short rounds, for a first look or a busy machine
 * @property {'wrk' | 'node'} loader
 * @property {boolean} pm2 compare with PM2 too
 * @property {<T>(full: T, quick: T) => T} pick
 * @property {() => boolean} outOfTime the run's time budget is spent
 * @property {(text: string) => void} note a remark kept with the results
 * @property {(text: string) => void} log progress on stderr
 * @property {(fn: () => unknown) => void} defer clean-up run when the scenario ends, pass or fail
 *
 * @typedef {object} ScenarioResult
 * @property {string} [unavailable] why it could not run (a feature not on main yet)
 * @property {string[]} [header]
 * @property {(string | number)[][]} [rows]
 * @property {Record<string, unknown>} [figures] medians and ratios, for the JSON file
 * @property {ReturnType<typeof import('./lib/report.js').target>[]} [targets]
 */

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    quick: { type: 'boolean', default: false },
    budget: { type: 'string' },
    'no-pm2': { type: 'boolean', default: false },
    'no-install': { type: 'boolean', default: false },
    loader: { type: 'string', default: 'auto' },
    out: { type: 'string', default: join(ROOT, 'bench-results') },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false }
  }
})

if (values.help || values.list) {
  process.stdout.write(`usage: npm run bench -- [scenario ...] [--quick] [--budget seconds] [--no-pm2] [--loader auto|wrk|node] [--out dir]\nscenarios: ${SCENARIOS.join(', ')}\n`)
  process.exit(0)
}
const unknown = positionals.filter((n) => !SCENARIOS.includes(n))
if (unknown.length > 0) {
  process.stderr.write(`bench: unknown scenario ${unknown.join(', ')} (known: ${SCENARIOS.join(', ')})\n`)
  process.exit(2)
}

ensureBenchDeps()
const selected = positionals.length > 0 ? positionals : SCENARIOS
const budgetMs = Number(values.budget ?? (values.quick ? 240 : 600)) * 1000
const deadline = Date.now() + budgetMs
const loader = await pickLoader(values.loader)
const pm2 = !values['no-pm2'] && pm2Installed()
const machine = describeMachine(loader)
process.stderr.write(`bench: ${selected.join(', ')}${values.quick ? ' (quick)' : ''}; budget ${budgetMs / 1000} s; load by ${loader}; PM2 ${pm2 ? 'included' : 'not installed (npm run bench:setup)'}\n`)
process.stderr.write(`bench: ${machine.cpus} × ${machine.model}, ${machine.memoryGiB} GiB, node ${machine.node}, load average ${machine.loadavg.join(' ')}\n`)

/** @type {(() => unknown)[]} */
let cleanups = []
const runCleanups = async () => {
  const pending = cleanups.reverse()
  cleanups = []
  for (const fn of pending) {
    try { await fn() } catch (err) { process.stderr.write(`bench: clean-up failed: ${err}\n`) }
  }
}
for (const signal of /** @type {const} */ (['SIGINT', 'SIGTERM'])) {
  process.once(signal, async () => {
    process.stderr.write(`bench: ${signal}, cleaning up\n`)
    await runCleanups()
    process.exit(130)
  })
}

const stamp = new Date().toISOString().replace(/[:.]/g, '-')
const outDir = join(values.out, stamp)
mkdirSync(outDir, { recursive: true })
/** @type {Record<string, unknown>} */
const all = {}
let failures = 0

for (const name of selected) {
  /** @type {string[]} */
  const notes = []
  /** @type {BenchContext} */
  const ctx = {
    quick: values.quick,
    loader,
    pm2,
    pick: (full, quick) => (values.quick ? quick : full),
    outOfTime: () => Date.now() > deadline,
    note: (text) => notes.push(text),
    log: (text) => process.stderr.write(`  ${name}: ${text}\n`),
    defer: (fn) => { cleanups.push(fn) }
  }
  process.stdout.write(`\n## ${name}\n`)
  if (ctx.outOfTime()) {
    process.stdout.write('skipped: the time budget is spent (--budget to give more)\n')
    all[name] = { skipped: 'time budget' }
    continue
  }
  const started = Date.now()
  const loadStart = loadavg()[0].toFixed(2)
  let result
  try {
    const mod = await import(`./scenarios/${name}.js`)
    result = /** @type {ScenarioResult} */ (await mod.run(ctx))
  } catch (err) {
    failures++
    result = { error: String(/** @type {Error} */ (err)?.stack ?? err) }
    process.stdout.write(`FAILED: ${/** @type {Error} */ (err)?.message ?? err}\n`)
  } finally {
    await runCleanups()
  }
  // The machine's load over the scenario (1-minute average at its start and end): a figure
  // taken while something else ran says so.
  const load = { start: loadStart, end: loadavg()[0].toFixed(2) }
  process.stdout.write(`load average ${load.start} → ${load.end} over ${((Date.now() - started) / 1000).toFixed(0)} s\n`)
  const record = { ...result, notes, load, seconds: (Date.now() - started) / 1000 }
  all[name] = record
  writeFileSync(join(outDir, `${name}.json`), JSON.stringify({ machine, quick: values.quick, ...record }, null, 2))
  printResult(/** @type {any} */ (record))
}

writeFileSync(join(outDir, 'all.json'), JSON.stringify({ machine, quick: values.quick, scenarios: all }, null, 2))
writeFileSync(join(values.out, 'latest.json'), JSON.stringify({ machine, quick: values.quick, dir: outDir, scenarios: all }, null, 2))
process.stdout.write(`\nresults: ${outDir}\n`)
process.exitCode = failures > 0 ? 1 : 0

/** @param {ScenarioResult & { notes: string[], error?: string }} record */
function printResult (record) {
  if (record.unavailable) process.stdout.write(`not available yet: ${record.unavailable}\n`)
  if (record.header && record.rows) process.stdout.write(renderTable(record.header, record.rows) + '\n')
  for (const t of record.targets ?? []) {
    const mark = t.met === null ? '?' : t.met ? 'met' : 'MISSED'
    process.stdout.write(`target  ${t.what}: ${t.shown} (${t.op} ${t.limit}) ${mark}\n`)
  }
  for (const n of record.notes) process.stdout.write(`note    ${n}\n`)
}

/** Install autocannon and PM2 (test/bench/package.json) the first time, unless told not to. */
function ensureBenchDeps () {
  if (existsSync(join(BENCH, 'node_modules')) || values['no-install']) return
  process.stderr.write('bench: installing the bench-only dependencies (npm run bench:setup)...\n')
  try {
    execFileSync('npm', ['ci', '--prefix', BENCH, '--no-audit', '--no-fund'], { stdio: ['ignore', 'ignore', 'inherit'] })
  } catch {
    process.stderr.write('bench: could not install them; going on without PM2 (and without autocannon if wrk is missing)\n')
  }
}

/** @param {string} loaderName */
function describeMachine (loaderName) {
  const model = /model name\s*:\s*(.*)/.exec(safeRead('/proc/cpuinfo'))?.[1] ?? cpus()[0]?.model ?? 'unknown'
  return {
    date: new Date().toISOString(),
    cpus: cpus().length,
    model,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    freeGiB: Math.round(freemem() / 2 ** 30),
    node: process.version,
    loadavg: loadavg().map((l) => l.toFixed(2)),
    loader: loaderName
  }
}

/** @param {string} file */
function safeRead (file) {
  try { return readFileSync(file, 'utf8') } catch { return '' }
}
