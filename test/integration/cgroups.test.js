// @ts-check
// Each worker in a cgroup of its own (issue 24): what a worker starts in a new session with a
// cleared environment (`setsid -f env -i sleep …`, which the token sweep cannot find) dies at
// stop, delete, and when a daemon killed with -9 is followed by the next one.
// Limits the kernel enforces (max_memory, cpu_limit) and an OOM kill reported with its reason.
// These tests need root and a cgroup fs sup may write (cgroup v2, or v1 with a freezer); CI
// runs as root on a hybrid layout (v1 controllers, cgroup2 at /sys/fs/cgroup/unified).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { readFileSync } from 'node:fs'
import { readDaemonPid } from '../../client/daemon.js'
import { cgroupSkipReason, sleepsWithArg, removeCgroupsAfter, uniqueSleep } from '../helpers/cgroups.js'
import { APPS, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

const skip = cgroupSkipReason()
const ESCAPES = join(APPS, 'escapes.js')

/**
 * A home whose daemon runs an app that started an escapee; resolves once the escapee runs.
 * @param {import('node:test').TestContext} t
 * @param {string[]} flags
 * @param {Record<string, string>} [env]
 */
async function withEscapee (t, flags, env = {}) {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  const marker = uniqueSleep()
  const start = await home.sup(['start', ESCAPES, '-n', 'esc', ...flags, '--', marker], { env })
  assert.equal(start.code, 0, start.stderr)
  await waitForRows(home, (rows) => rows.length > 0 && rows.every((r) => r.status === 'online'), { what: 'esc online' })
  const expected = flags.includes('-i') ? Number(flags[flags.indexOf('-i') + 1]) : 1
  await waitFor(() => sleepsWithArg(marker).length === expected, { what: `${expected} escapee(s) running`, timeout: 15_000 })
  t.after(() => { for (const pid of sleepsWithArg(marker)) process.kill(pid, 'SIGKILL') })
  return { home, marker, escapees: sleepsWithArg(marker) }
}

for (const mode of ['fork', 'cluster']) {
  const flags = mode === 'cluster' ? ['-i', '2'] : []
  test(`needs root and the cgroup fs: a setsid -f env -i grandchild is gone after stop (${mode} mode)`, { skip }, async (t) => {
    const { home, escapees } = await withEscapee(t, flags)
    const stop = await home.sup(['stop', 'esc'])
    assert.equal(stop.code, 0, stop.stderr)
    await waitForExit(escapees, 5000)
  })

  test(`needs root and the cgroup fs: a setsid -f env -i grandchild is gone after delete (${mode} mode)`, { skip }, async (t) => {
    const { home, escapees } = await withEscapee(t, flags)
    const del = await home.sup(['delete', 'esc'])
    assert.equal(del.code, 0, del.stderr)
    await waitForExit(escapees, 5000)
  })
}

test('needs root and the cgroup fs: after a kill -9 of the daemon, the next one ends what the dead one\'s workers left', { skip }, async (t) => {
  const { home, escapees } = await withEscapee(t, [])
  const pid = /** @type {number} */ (readDaemonPid(home.paths))
  process.kill(pid, 'SIGKILL')
  await waitForExit([pid])
  // The next CLI call starts a daemon, which ends the dead one's cgroups before restoring.
  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  await waitForExit(escapees, 10_000)
})

test('needs root and the cgroup fs: describe says how the app is contained', { skip }, async (t) => {
  const { home } = await withEscapee(t, [])
  const { stdout } = await home.sup(['describe', 'esc'])
  assert.match(stdout, /containment cgroup v(2|1 freezer) \(a cgroup per worker/)
  const json = JSON.parse((await home.sup(['describe', 'esc', '--json'])).stdout)
  assert.match(json.containment.kind, /^cgroup-v[12]$/)
})

test('SUP_CGROUPS=off: the token sweep contains the workers, and describe says so', async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  const start = await home.sup(['start', join(APPS, 'http-server.js'), '-n', 'plain'], { env: { SUP_CGROUPS: 'off' } })
  assert.equal(start.code, 0, start.stderr)
  const { stdout } = await home.sup(['describe', 'plain'])
  assert.match(stdout, /containment token sweep \(no cgroups: SUP_CGROUPS=off/)
})

/**
 * The app's events so far (sup events --json: one object a line).
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} app
 */
async function eventsOf (home, app) {
  const { stdout } = await home.sup(['events', app, '--json'])
  return stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
}

test('needs root and the cgroup fs: a worker past max_memory is OOM-killed by the kernel and restarted with the reason', { skip }, async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  // 200 MiB in a worker limited to 64 MiB: the kernel kills it as soon as it touches the pages.
  const start = await home.sup(['start', join(APPS, 'grows.js'), '-n', 'hog', '--max-memory', '64M', '--min-uptime', '100', '--restart-delay', '1000'], { env: { GROW_MB: '200' } })
  assert.equal(start.code, 0, start.stderr)
  await waitFor(async () => (await eventsOf(home, 'hog')).some((e) => e.kind === 'restarting'), { what: 'a restart after the OOM kill', timeout: 20_000 })
  const events = await eventsOf(home, 'hog')
  const oom = events.find((e) => e.kind === 'oom')
  assert.ok(oom, `an oom event: ${JSON.stringify(events.map((e) => e.kind))}`)
  assert.equal(oom.message, 'OOM-killed by the kernel: over max_memory (64 MiB)')
  assert.equal(oom.data.limit, 64 * 1048576)
  const restart = events.find((e) => e.kind === 'restarting')
  assert.match(restart.message, /exited with signal SIGKILL \(OOM-killed by the kernel: over max_memory \(64 MiB\)\); restarting/)
})

/**
 * CPU time (utime + stime) of a process in seconds, from /proc.
 * @param {number} pid
 */
function cpuSeconds (pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'latin1').split(') ')[1].split(' ')
  return (Number(fields[11]) + Number(fields[12])) / 100
}

test('needs root and the cgroup fs: cpu_limit holds a busy worker at its quota', { skip }, async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  const start = await home.sup(['start', join(APPS, 'spins.js'), '-n', 'spin', '--cpu-limit', '0.25'])
  assert.equal(start.code, 0, start.stderr)
  const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'online', { what: 'spin online' })
  const pid = /** @type {number} */ (row.pid)
  const cgroupDir = (/** @type {string} */ controller) => {
    const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8').split('\n').find((l) => l.split(':')[1].split(',').includes(controller))
    return line ? `/sys/fs/cgroup/${controller}${line.split(':')[2]}` : null
  }
  const before = { at: performance.now(), cpu: cpuSeconds(pid) }
  // Long enough for the share to show through scheduling noise (100 ms periods).
  await waitFor(() => performance.now() - before.at >= 3000, { what: 'three seconds of spinning', timeout: 10_000 })
  const cores = (cpuSeconds(pid) - before.cpu) / ((performance.now() - before.at) / 1000)
  // Never above the quota (10 ms ticks of rounding); on a busy shared machine it may get less,
  // so the kernel's own count of throttled periods shows the quota is what held it.
  assert.ok(cores <= 0.25 * 1.15, `used ${cores.toFixed(3)} cores, limit 0.25`)
  const dir = cgroupDir('cpu') ?? `/sys/fs/cgroup/unified${readFileSync(`/proc/${pid}/cgroup`, 'utf8').match(/^0::(.*)$/m)?.[1]}`
  const throttled = Number(/^nr_throttled (\d+)$/m.exec(readFileSync(`${dir}/cpu.stat`, 'utf8'))?.[1])
  assert.ok(throttled > 0, `throttled periods: ${throttled}`)
})

test('a limit the daemon cannot enforce refuses the start (SUP_CGROUPS=off)', async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  const start = await home.sup(['start', join(APPS, 'http-server.js'), '-n', 'capped', '--max-memory', '64M'], { env: { SUP_CGROUPS: 'off' } })
  assert.notEqual(start.code, 0)
  assert.match(start.stderr, /app "capped" sets max_memory, which this daemon cannot enforce: SUP_CGROUPS=off/)
  assert.deepEqual(await home.ls(), [], 'nothing of it started')
})

/**
 * CPU seconds and anonymous resident bytes of these processes, from /proc.
 * @param {number[]} pids
 */
function procFigures (pids) {
  let cpu = 0
  let anon = 0
  for (const pid of pids) {
    cpu += cpuSeconds(pid)
    anon += Number(/^RssAnon:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024
  }
  return { cpu, anon }
}

test('needs root and the cgroup fs: CPU time and memory read from the cgroup match /proc within 5 %', { skip }, async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  const start = await home.sup(['start', join(APPS, 'burns.js'), '-n', 'burn'], { env: { BURN_MS: '1500', HOLD_MB: '96' } })
  assert.equal(start.code, 0, start.stderr)
  // Both processes done burning, and a sample taken after that (the figures have settled).
  /** @type {any} */
  let row = null
  await waitFor(async () => {
    const [now] = await home.ls()
    const settled = row?.cgroup && now?.cgroup && now.cgroup.processes === 2 && now.cgroup.cpu_seconds >= 3 && Math.abs(now.cgroup.cpu_seconds - row.cgroup.cpu_seconds) < 0.02
    row = now
    return settled
  }, { what: 'the burn done and sampled twice', timeout: 30_000, interval: 1100 })
  const pids = readFileSync(`/sys/fs/cgroup/unified${readFileSync(`/proc/${row.pid}/cgroup`, 'utf8').match(/^0::(.*)$/m)?.[1]}/cgroup.procs`, 'utf8').split('\n').filter(Boolean).map(Number)
  assert.equal(pids.length, 2)
  const proc = procFigures(pids)
  const within = (/** @type {number} */ a, /** @type {number} */ b) => Math.abs(a - b) / b <= 0.05
  assert.ok(within(row.cgroup.cpu_seconds, proc.cpu), `cgroup ${row.cgroup.cpu_seconds} s of CPU, /proc ${proc.cpu} s`)
  assert.ok(within(row.cgroup.anon, proc.anon), `cgroup ${row.cgroup.anon} anonymous bytes, /proc ${proc.anon}`)
})

test('needs root and the cgroup fs: max_pids caps the processes and threads of a worker and all it starts', { skip }, async (t) => {
  const home = useSupHome(t)
  removeCgroupsAfter(t, home.home)
  // node itself runs about a dozen threads; each counts.
  const start = await home.sup(['start', join(APPS, 'forks-many.js'), '-n', 'forks', '--max-pids', '24'], { env: { FORKS: '40' } })
  assert.equal(start.code, 0, start.stderr)
  const log = join(home.paths.logs, 'forks-out.log')
  await waitFor(() => { try { return /started \d+ refused \d+/.test(readFileSync(log, 'utf8')) } catch { return false } }, { what: 'the forks counted', timeout: 20_000 })
  const [, started, refused] = /started (\d+) refused (\d+)/.exec(readFileSync(log, 'utf8')) ?? []
  assert.ok(Number(refused) > 0, `the kernel refused some of the 40 forks (started ${started}, refused ${refused})`)
  assert.ok(Number(started) < 24, `started ${started}`)
})
