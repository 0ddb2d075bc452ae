// @ts-check
// The wall clock jumps an hour back, then two hours forward, under a running daemon: a real
// change of the clock as the daemon sees it (libfaketime preloaded into the daemon, its offset
// changed while it runs; the monotonic clock left alone, as when an administrator or NTP steps
// the time). What must hold: uptimes, min_uptime, restart delays and timeouts do not move with
// the wall clock; no restart is counted unstable for it; the daemon answers ping.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

/** The multi-threaded build (the daemon runs libuv's thread pool), from Debian's libfaketime. */
const LIBFAKETIME = ['x86_64', 'aarch64'].map((arch) => `/usr/lib/${arch}-linux-gnu/faketime/libfaketimeMT.so.1`).find((f) => existsSync(f))
const HOUR = 3_600_000

test('the wall clock set back and forward an hour: uptimes and crash accounting do not move', async (t) => {
  assert.ok(LIBFAKETIME, 'this test needs libfaketime: apt-get install -y libfaketime (npm test installs it when run as root)')
  const home = useSupHome(t)
  const offsetFile = join(home.paths.home, 'faketime-offset')
  writeFileSync(offsetFile, '+0\n')
  const clock = {
    LD_PRELOAD: LIBFAKETIME,
    FAKETIME_TIMESTAMP_FILE: offsetFile,
    // Read the offset again at most every second, so a change reaches the running daemon.
    FAKETIME_CACHE_DURATION: '1',
    DONT_FAKE_MONOTONIC: '1'
  }
  Object.assign(clock, { FAKETIME_SHARED: await sharedFakeTime(t, clock) })
  // A worker that exits after 2 s: stable (min_uptime 1 s), so it restarts for ever. With
  // max_restarts 0 a single restart counted unstable would leave it errored.
  const started = await home.sup(['start', join(APPS, 'exits-after.js'), '--name', 'tick', '--min-uptime', '1000', '--max-restarts', '0'],
    { env: { ...clock, EXIT_AFTER: '2000' } })
  assert.equal(started.code, 0, started.stderr)
  const steady = await home.sup(['start', join(APPS, 'signal-logger.js'), '--name', 'steady'], { env: clock })
  assert.equal(steady.code, 0, steady.stderr)
  const logFile = home.paths.daemonLog

  for (const [offset, sign] of /** @type {const} */ ([['-3600', -1], ['+3600', 1]])) {
    const before = await row(home, 'steady')
    const tick = await row(home, 'tick')
    const changedAt = Date.now()
    writeFileSync(offsetFile, `${offset}\n`)
    // The daemon's wall clock has moved once a line it logs carries the new time.
    await waitFor(() => daemonLogTimes(logFile).some((time) => sign * (time - Date.now()) > HOUR / 2),
      { what: `a daemon.log line an hour ${sign < 0 ? 'back' : 'ahead'}`, timeout: 15_000 })
    // Two more restarts of "tick" after the jump, each a stable one.
    const rows = await waitForRows(home, (rs) => rs.some((r) => r.name === 'tick' && r.restarts >= tick.restarts + 2),
      { timeout: 20_000, what: '"tick" restarting twice after the jump' })
    const after = /** @type {import('../../ipc/methods.js').WorkerRow} */ (rows.find((r) => r.name === 'tick'))
    assert.notEqual(after.status, 'errored', `"tick" is errored after the clock jumped ${offset} s`)
    assert.equal(after.unstable_restarts, 0)
    const now = await row(home, 'steady')
    const elapsed = Date.now() - changedAt
    assert.equal(now.restarts, before.restarts, '"steady" was not restarted')
    assert.equal(now.pid, before.pid)
    assert.ok(now.uptime >= before.uptime, `uptime went from ${before.uptime} to ${now.uptime} ms`)
    assert.ok(now.uptime <= before.uptime + elapsed + 2000, `uptime ${now.uptime} ms, ${elapsed} ms after ${before.uptime} ms`)
    const ping = Date.now()
    const pong = await home.sup(['ping'])
    assert.equal(pong.code, 0, pong.stderr)
    console.log(`clock ${offset} s: "tick" ${after.restarts - tick.restarts} stable restarts, "steady" uptime ${before.uptime} → ${now.uptime} ms over ${elapsed} ms; ping ${Date.now() - ping} ms`)
  }
})

/**
 * libfaketime's shared state for every process of the test, held by one process that outlives
 * them all. Without it, each process that finds none makes its own (named for its pid), passes it
 * on in FAKETIME_SHARED and deletes it at exit: the CLI that started the daemon made the one
 * the daemon and its workers inherited, and once it was gone, workers recreating it raced each
 * other's exits (libfaketime 0.9.10, upstream issue 56) and some died at once with "sem_open
 * failed and recreation attempts failed", exit code 1: a crash loop, 1 run in ~25 under load.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} clock
 */
async function sharedFakeTime (t, clock) {
  // It waits on its stdin; when that ends, it exits and libfaketime deletes what it made, in a
  // destructor (dash and python3 leave it in /dev/shm: dash ends with _exit).
  const holder = spawn(process.execPath, ['-e', 'process.stdin.resume(); console.log("ready")'], { env: { ...clock, PATH: process.env.PATH }, stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(async () => {
    const exited = holder.exitCode === null && holder.signalCode === null ? once(holder, 'exit') : null
    holder.stdin.end()
    await exited
  })
  await once(holder.stdout, 'data')
  const objects = [`/dev/shm/sem.faketime_sem_${holder.pid}`, `/dev/shm/faketime_shm_${holder.pid}`]
  assert.ok(objects.every((f) => existsSync(f)), `libfaketime's shared state: ${objects.join(', ')}`)
  return `/faketime_sem_${holder.pid} /faketime_shm_${holder.pid}`
}

/**
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} name
 */
async function row (home, name) {
  const found = (await home.ls()).find((r) => r.name === name)
  assert.ok(found, `no row for ${name}`)
  return found
}

/**
 * The times (ms since the epoch) of the daemon's log lines.
 * @param {string} file
 * @returns {number[]}
 */
function daemonLogTimes (file) {
  if (!existsSync(file)) return []
  return readFileSync(file, 'utf8').split('\n').flatMap((line) => {
    try {
      const time = JSON.parse(line).time
      return typeof time === 'number' ? [time] : []
    } catch {
      return []
    }
  })
}
