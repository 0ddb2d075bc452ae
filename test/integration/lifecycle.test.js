// @ts-check
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, isAlive, useSupHome, waitForExit, waitForLogLine, waitForRows } from '../helpers/sup.js'

test('an app that crashes on boot: start answers after the first exit, the loop backs off into errored in the background', async (t) => {
  const home = useSupHome(t)
  const result = await home.sup(['start', join(APPS, 'crash-on-boot.js'), '--max-restarts', '3', '--restart-delay', '50', '--min-uptime', '10000', '--json'])
  // (min_uptime long enough that a slow machine's node boot does not count as online.)
  // start answers once the first attempt is decided (it exited, a retry is scheduled), as
  // PM2's does; the crash loop goes on in the background.
  assert.equal(result.code, 0, result.stderr)
  const [first] = JSON.parse(result.stdout)
  assert.deepEqual([first.status, first.restarts], ['waiting', 0])
  const [row] = await waitForRows(home, (rs) => rs[0]?.status === 'errored', { what: 'errored' })
  // 1 start + 3 tolerated fast exits: the 4th exit trips the crash-loop breaker.
  assert.equal(row.restarts, 3)
  assert.equal(row.unstable_restarts, 4)
  assert.equal(row.pid, null)
  assert.ok(row.retry_at !== null && row.retry_at - Date.now() > 20_000, 'the half-open retry is tens of seconds away, not a busy loop')
  assert.deepEqual(row.last_exit && { code: row.last_exit.code, signal: row.last_exit.signal }, { code: 3, signal: null })
  const human = await home.sup(['start', join(APPS, 'crash-on-boot.js'), '--name', 'once', '--max-restarts', '0', '--min-uptime', '10000'])
  assert.equal(human.code, 1, 'errored at the first exit: start fails')
  assert.match(human.stderr, /did not come online/)

  // The errored app keeps its state and can be started again by hand.
  const logs = await home.sup(['logs', 'crash-on-boot', '--nostream', '--lines', '2'])
  assert.match(logs.stdout, /failing on purpose/)
  const restart = await home.sup(['restart', 'crash-on-boot'])
  assert.equal(restart.code, 0, restart.stderr)
  const [again] = await waitForRows(home, (rs) => rs[0]?.status === 'errored' && rs[0].restarts > 3, { what: 'errored again after a manual restart' })
  assert.ok(again.restarts >= 4)
})

test('an app that ignores SIGINT is killed after kill_timeout', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', join(APPS, 'ignore-sigint.js'), '--kill-timeout', '700', '--min-uptime', '100'])).code, 0)
  const [row] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'online' })
  const started = Date.now()
  const stop = await home.sup(['stop', 'ignore-sigint'])
  const took = Date.now() - started
  assert.equal(stop.code, 0, stop.stderr)
  assert.ok(took >= 600, `the ladder waited for kill_timeout before SIGKILL (took ${took} ms)`)
  assert.equal(isAlive(/** @type {number} */ (row.pid)), false)
  const [stopped] = await home.ls()
  assert.equal(stopped.status, 'stopped')
  assert.equal(stopped.last_exit?.signal, 'SIGKILL')
  const out = await home.sup(['logs', 'ignore-sigint', '--nostream'])
  assert.match(out.stdout, /SIGINT ignored/)
})

for (const mode of ['cluster', 'fork']) {
  test(`delete leaves no grandchild behind (${mode} mode)`, async (t) => {
    const home = useSupHome(t)
    const args = mode === 'cluster' ? ['-i', '1'] : []
    assert.equal((await home.sup(['start', join(APPS, 'spawns-child.js'), ...args, '--min-uptime', '100'])).code, 0)
    const [row] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'online' })
    assert.equal(row.mode, mode)
    const logFile = join(home.paths.logs, mode === 'cluster' ? 'spawns-child-out-0.log' : 'spawns-child-out.log')
    const childPid = await waitForChildPid(home, logFile)
    assert.ok(isAlive(childPid))

    const del = await home.sup(['delete', 'spawns-child'])
    assert.equal(del.code, 0, del.stderr)
    await waitForExit([(row.pid), childPid], 5000)
  })
}

/**
 * The fixture prints its child's pid; read it from the app's log once it is there.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} logFile
 */
async function waitForChildPid (home, logFile) {
  const match = await waitForLogLine(home, 'spawns-child', /child (\d+)/, { show: () => readFileSync(logFile, 'utf8') })
  return Number(match[1])
}

test('a Python script runs in fork mode, picked by its extension', async (t) => {
  const home = useSupHome(t)
  const result = await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])
  assert.equal(result.code, 0, result.stderr)
  const [row] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'python online' })
  assert.equal(row.mode, 'fork')
  assert.equal(row.name, 'worker')
  // The line comes from python itself: by then any launcher in between (a pyenv shim, setpriv)
  // has exec()ed it, which "online" after min_uptime does not promise on a loaded machine.
  const logs = await waitForLogLine(home, 'worker', /python worker \d+ instance 0/)
  assert.ok(logs)
  const cmdline = readFileSync(`/proc/${row.pid}/cmdline`, 'utf8').split('\0')
  assert.match(cmdline[0], /python3$/)
  assert.equal(cmdline[1], join(APPS, 'worker.py'))
  const del = await home.sup(['delete', 'worker'])
  assert.equal(del.code, 0)
  await waitForExit([(row.pid)])
})
