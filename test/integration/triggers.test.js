// @ts-check
import assert from 'node:assert/strict'
import { mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

/** @param {ReturnType<typeof useSupHome>} home @param {string} app */
async function describeApp (home, app) {
  const result = await home.sup(['describe', app, '--json'])
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout)
}

/** The reasons of the daemon's "restarting app" lines. @param {ReturnType<typeof useSupHome>} home */
function restartReasons (home) {
  return readFileSync(home.paths.daemonLog, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line))
    .filter((entry) => entry.msg === 'restarting app').map((entry) => entry.reason)
}

test('cron_restart restarts every worker on schedule, but not the ones stopped by hand (fork mode)', async (t) => {
  const home = useSupHome(t)
  const bad = await home.sup(['start', join(APPS, 'log-flood.js'), '--cron-restart', '61 * * * *'])
  assert.equal(bad.code, 1)
  assert.equal(bad.stderr.trim(), 'sup: invalid cron_restart "61 * * * *": Invalid value for minute: 61 (use 5 fields "minute hour day month weekday", or 6 with seconds first, e.g. "0 3 * * *")')

  const start = await home.sup(['start', join(APPS, 'log-flood.js'), '-i', '2', '-x', '--cron-restart', '*/2 * * * * *', '--min-uptime', '100', '--', '1', '--stay'])
  assert.equal(start.code, 0, start.stderr)
  const info = await describeApp(home, 'log-flood')
  assert.equal(info.triggers.cron_restart.expression, '*/2 * * * * *')
  assert.ok(info.triggers.cron_restart.next > Date.now() - 1000 && info.triggers.cron_restart.next % 2000 === 0, 'next is an even second')
  const rows = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.restarts >= 2 && r.status === 'online'), { timeout: 15_000, what: 'two scheduled restarts' })
  assert.ok(restartReasons(home).every((reason) => reason === 'cron_restart "*/2 * * * * *"'))

  // A worker stopped by hand stays stopped through later ticks; the other one goes on.
  assert.equal((await home.sup(['stop', String(rows[0].id)])).code, 0)
  const stoppedAt = (await home.ls())[0].restarts
  const ticks = restartReasons(home).length
  await waitFor(() => restartReasons(home).length >= ticks + 2, { what: 'two more ticks' })
  await waitForRows(home, (rs) => rs[1].status === 'online', { what: 'the other worker back online' })
  const [held, other] = await home.ls()
  assert.equal(held.status, 'stopped')
  assert.equal(held.restarts, stoppedAt)
  assert.ok(other.restarts > rows[1].restarts)
})

test('cron_restart of a cluster app is a rolling reload: new workers ready before the old ones go', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  // The cron fires on even seconds. A tick that lands while `start` still waits for its
  // workers replaces one before it came online, and `start` rightly says so (1 run in 6 on a
  // quiet machine): start just after a tick, so the first one comes ~1.9 s later.
  await waitFor(() => Date.now() % 2000 < 150, { what: 'just after an even second', timeout: 3000 })
  const start = await home.sup(['start', join(APPS, 'log-flood.js'), '-i', '2', '--cron-restart', '*/2 * * * * *', '--min-uptime', '100', '--', '1', '--stay'])
  assert.equal(start.code, 0, start.stderr)
  const first = await home.ls()
  const rows = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => !first.some((f) => f.pid === r.pid) && r.status === 'online'), { timeout: 15_000, what: 'every worker replaced' })
  assert.deepEqual(rows.map((r) => [r.instance, r.id]).sort(), [[0, 0], [1, 1]], 'each instance keeps its id')
  const { last_rollout: rollout } = await describeApp(home, 'log-flood')
  assert.equal(rollout.op, 'reload')
  assert.equal(rollout.strategy, 'rolling')
  assert.equal(rollout.outcome, 'reloaded')
})

test('watch: a burst of changes restarts the workers once; ignored files and node_modules do not count', async (t) => {
  const home = useSupHome(t)
  const dir = join(home.home, 'app')
  mkdirSync(join(dir, 'node_modules'), { recursive: true })
  for (const file of ['watched.js', 'other.js', 'scratch.tmp', 'node_modules/dep.js']) writeFileSync(join(dir, file), '')
  const missing = await home.sup(['start', join(APPS, 'log-flood.js'), '--cwd', dir, '--watch', 'nope'])
  assert.equal(missing.code, 1)
  assert.match(missing.stderr, /^sup: watch path ".*app\/nope" does not exist/)

  const start = await home.sup(['start', join(APPS, 'log-flood.js'), '--cwd', dir, '--watch', '--ignore-watch', '*.tmp',
    '--watch-delay', '300', '--min-uptime', '100', '--', '1', '--stay'])
  assert.equal(start.code, 0, start.stderr)
  await waitFor(async () => (await describeApp(home, 'log-flood')).triggers.watch.ready, { what: 'the watcher ready' })
  const [before] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'online' })

  // One burst: changes to two watched files, then an ignored file and node_modules last. Had
  // those been watched, the burst's reason (its last change) would name one of them.
  const touch = (/** @type {string} */ file) => utimesSync(join(dir, file), new Date(), new Date())
  touch('watched.js')
  writeFileSync(join(dir, 'other.js'), 'changed')
  touch('watched.js')
  touch('scratch.tmp')
  touch('node_modules/dep.js')
  const [after] = await waitForRows(home, (rs) => rs[0]?.restarts === 1 && rs[0].status === 'online', { what: 'one restart' })
  assert.notEqual(after.pid, before.pid)
  const [first, ...more] = restartReasons(home)
  assert.match(first, /^watch: .*\/app\/(watched|other)\.js changed$/)
  assert.deepEqual(more, [])

  // A later change is a second restart, and only that: the burst above caused exactly one.
  writeFileSync(join(dir, 'new-file.js'), '')
  await waitForRows(home, (rs) => rs[0]?.restarts === 2 && rs[0].status === 'online', { what: 'a second restart' })
  assert.deepEqual(restartReasons(home), [first, `watch: ${join(dir, 'new-file.js')} changed`])
})
