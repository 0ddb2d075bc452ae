// @ts-check
// Each worker in a cgroup of its own (issue 24): what a worker starts in a new session with a
// cleared environment (`setsid -f env -i sleep …`, which the token sweep cannot find) dies at
// stop, delete, and when a daemon killed with -9 is followed by the next one.
// These tests need root and a cgroup fs sup may write (cgroup v2, or v1 with a freezer); CI
// runs as root on a hybrid layout (v1 controllers, cgroup2 at /sys/fs/cgroup/unified).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
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
