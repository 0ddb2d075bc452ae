// @ts-check
// Faults in the workers themselves. What must hold after each: the daemon answers ping within
// 1 s, the app's row is still there, and no process the worker started outlives it.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { isProcessRunning } from '../../ipc/process-status.js'
import { sendSignal } from '../../daemon/worker/process-tree.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome } from '../helpers/sup.js'

/**
 * The pids a fixture printed as `<word> <pid>` in its out log, once `count` are there.
 * @param {string} file
 * @param {string} word
 * @param {number} count
 */
async function printedPids (file, word, count) {
  const pattern = new RegExp(`^${word} (\\d+)$`, 'gm')
  return waitFor(() => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
    const pids = [...text.matchAll(pattern)].map((m) => Number(m[1]))
    return pids.length >= count ? pids : null
  }, { what: `${count} "${word}" line(s) in ${file}`, timeout: 15_000 })
}

/** @param {ReturnType<typeof useSupHome>} home */
async function assertHealthy (home) {
  const started = Date.now()
  const ping = await home.sup(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
  // The CLI's own start-up is most of this; the limit is for a daemon stuck on something.
  assert.ok(Date.now() - started < 5000, `ping took ${Date.now() - started} ms`)
}

// Each worker in a cgroup where the daemon may make one (root, as CI runs); the token sweep,
// which machines without cgroups rely on, is run here too with SUP_CGROUPS=off.
for (const [mode, containment] of [['cluster', ''], ['fork', ''], ['cluster', 'off'], ['fork', 'off']]) {
  const sweep = containment === 'off' ? '; token sweep, SUP_CGROUPS=off' : ''
  test(`a daemonised grandchild dies with the worker that started it (${mode} mode${sweep})`, async (t) => {
    const home = useSupHome(t)
    const args = mode === 'cluster' ? ['-i', '1'] : ['-x']
    /** @type {number[]} */
    let grandchildren = []
    t.after(() => { for (const pid of grandchildren) sendSignal(pid, 'SIGKILL') })
    const env = containment ? { SUP_CGROUPS: containment } : {}
    const started = await home.sup(['start', join(APPS, 'daemonizes.js'), ...args, '--name', 'bg', '--restart-delay', '200'], { env })
    assert.equal(started.code, 0, started.stderr)
    const log = join(home.paths.logs, mode === 'cluster' ? 'bg-out-0.log' : 'bg-out.log')
    // Two generations: each one's grandchild must be gone once its parent has exited.
    grandchildren = await printedPids(log, 'grandchild', 3)
    const [first, second] = grandchildren
    await waitFor(() => !isProcessRunning(first) && !isProcessRunning(second), { what: 'the first two grandchildren to be killed' })
    await assertHealthy(home)
    assert.equal((await home.sup(['delete', 'bg'])).code, 0)
    await waitFor(() => grandchildren.every((pid) => !isProcessRunning(pid)), { what: 'every grandchild gone after delete' })
  })
}

test('a SIGSTOPped (hung) worker: the daemon keeps answering, and restart gets past it', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'hung', '--kill-timeout', '1000'], { env: { PORT: '0' } })
  assert.equal(started.code, 0, started.stderr)
  const before = await home.ls()
  const victim = before[0]
  assert.ok(victim.pid)
  process.kill(victim.pid, 'SIGSTOP')
  t.after(() => { if (victim.pid) sendSignal(victim.pid, 'SIGKILL') })
  await assertHealthy(home)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => r.pid), before.map((r) => r.pid), 'a stopped process is not taken for dead')
  // SIGINT cannot reach a stopped process; the ladder's SIGKILL after kill_timeout does.
  const restarted = await home.sup(['restart', 'hung'])
  assert.equal(restarted.code, 0, restarted.stderr)
  await waitFor(() => !isProcessRunning(/** @type {number} */ (victim.pid)), { what: 'the stopped worker to be gone' })
  const after = await home.ls()
  assert.equal(after.length, 2)
  assert.ok(after.every((r) => r.status === 'online' && r.pid !== victim.pid), JSON.stringify(after))
})

test('a fork-mode node app that closes its IPC channel is still supervised', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'closes-ipc.js'), '-x', '--name', 'mute'])
  assert.equal(started.code, 0, started.stderr)
  const log = join(home.paths.logs, 'mute-out.log')
  await printedPids(log, 'disconnected', 1)
  const [row] = await home.ls()
  assert.equal(row.status, 'online')
  await assertHealthy(home)
  // Its crash is still seen and it is restarted, with no channel to tell us anything.
  process.kill(/** @type {number} */ (row.pid), 'SIGKILL')
  const pids = await printedPids(log, 'disconnected', 2)
  assert.notEqual(pids[1], pids[0])
  // And stop reaches it (SIGINT, not a message over the closed channel).
  const stopped = await home.sup(['stop', 'mute'])
  assert.equal(stopped.code, 0, stopped.stderr)
  assert.ok(!isProcessRunning(pids[1]), 'the process is gone after stop')
})
