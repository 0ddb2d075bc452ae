// @ts-check
// A process that cannot be started at all (issue 19 item 11) is not a crash loop: the reason is
// on the row and in start's answer, and no retry runs in a tight loop. And an app registered
// stopped (autostart: false) is state like any other (item 5): a daemon killed with -9 does
// not lose it.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { readDaemonPid } from '../../client/daemon.js'
import { APPS, freePort, isAlive, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'

test('an environment too big for the kernel (E2BIG): named by start, errored at once, not retried in a loop', async (t) => {
  const home = useSupHome(t)
  // One variable over the kernel's 128 KiB limit per string, from a config file.
  const file = join(home.home, 'big.config.json')
  writeFileSync(file, JSON.stringify({ apps: [{ name: 'big', script: join(APPS, 'print-env.js'), env: { HUGE: 'x'.repeat(200_000) } }] }))
  const started = await home.sup(['start', file])
  assert.match(started.stderr, /sup: big: could not start: spawn E2BIG/)
  const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'errored', { what: 'big errored' })
  assert.equal(row.restarts, 0, 'no restart was attempted')
  assert.match(String(row.last_exit?.reason), /E2BIG/)
  const ls = await home.sup(['ls'])
  assert.match(ls.stdout, /crash loop: big: could not start: spawn E2BIG \(worker 0, \d+s ago\); next try in \d+s/)
  const events = (await home.sup(['events', 'big', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line))
  assert.deepEqual(events.map((e) => e.kind), ['spawn-error'])
  assert.equal(events[0].data.error, 'E2BIG')
})

test('a port already taken: start names it and who holds it, and so do ls and the exit event', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const squatter = createServer()
  await new Promise((resolve) => squatter.listen(port, '127.0.0.1', () => resolve(undefined)))
  t.after(() => squatter.close())
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web', '--restart-delay', '2000'], { env: { PORT: String(port) } })
  const cause = `port ${port} is already in use by pid ${process.pid} (`
  assert.ok(started.stderr.includes(`sup: web: ${cause}`), started.stderr)
  const [row] = await home.ls()
  assert.ok(String(row.last_exit?.reason).startsWith(cause), JSON.stringify(row.last_exit))
  const events = (await home.sup(['events', 'web', '--json'])).stdout.trim().split('\n').map((line) => JSON.parse(line))
  const exit = events.find((e) => e.kind === 'restarting')
  assert.ok(exit?.message.startsWith(`exited with code 1 (${cause}`), exit?.message)
})

test('an app registered stopped (autostart: false) survives a kill -9 of the daemon', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'later', '--no-autostart'])
  assert.equal(started.code, 0, started.stderr)
  const pid = /** @type {number} */ (readDaemonPid(home.paths))
  process.kill(pid, 'SIGKILL')
  await waitForExit([pid])
  const rows = await waitForRows(home, (r) => r.length > 0, { what: 'the restored app' }).catch(async () => home.ls())
  assert.deepEqual(rows.map((r) => [r.name, r.status]), [['later', 'stopped']])
})

// With cgroups (root) the next daemon ends the dead one's cgroups; SUP_CGROUPS=off runs the token
// sweep that machines without cgroups rely on.
for (const containment of ['', 'off']) {
  test(`kill -9 of the daemon: a daemonised grandchild whose worker died with it is swept by the next daemon${containment ? ' (token sweep, SUP_CGROUPS=off)' : ''}`, { skip: process.platform !== 'linux' && 'the token sweep reads /proc' }, async (t) => {
    const home = useSupHome(t)
    const env = containment ? { SUP_CGROUPS: containment } : {}
    const started = await home.sup(['start', join(APPS, 'daemonizes.js'), '--name', 'forker'], { env: { ...env, EXIT_AFTER: '600000' } })
    assert.equal(started.code, 0, started.stderr)
    const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'online', { what: 'forker online' })
    // Printed at start, before min_uptime made it online.
    const logged = /grandchild (\d+)/.exec((await home.sup(['logs', 'forker', '--nostream', '--raw'])).stdout)
    assert.ok(logged, 'the fixture printed its grandchild\'s pid')
    const grandchild = Number(logged[1])
    t.after(() => { try { process.kill(grandchild, 'SIGKILL') } catch {} })
    const daemon = /** @type {number} */ (readDaemonPid(home.paths))
    process.kill(daemon, 'SIGKILL')
    // The worker goes with it; its grandchild, in a session of its own, is re-parented to init.
    try { process.kill(/** @type {number} */ (row.pid), 'SIGKILL') } catch {}
    await waitForExit([daemon, /** @type {number} */ (row.pid)])
    assert.ok(isAlive(grandchild), 'the grandchild outlived its worker and the daemon')
    const ls = await home.sup(['ls'], { env })
    assert.equal(ls.code, 0, ls.stderr)
    await waitForExit([grandchild])
  })
}
