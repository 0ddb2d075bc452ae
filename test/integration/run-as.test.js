// @ts-check
// PM2's uid/gid keys (issue 19 item 4): a root daemon runs the app's workers as that user, in
// fork and cluster mode; an unknown user is refused before anything runs. Needs root, as CI has.
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { APPS, freePort, httpGet, useSupHome, waitForRows } from '../helpers/sup.js'

const asRoot = process.getuid?.() === 0 ? false : 'changing user needs a root daemon (CI runs as root)'

/**
 * The real uid and gid of a process.
 * @param {number} pid
 */
function idsOf (pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return { uid: Number(/^Uid:\s+(\d+)/m.exec(status)?.[1]), gid: Number(/^Gid:\s+(\d+)/m.exec(status)?.[1]) }
}

for (const mode of ['fork', 'cluster']) {
  test(`uid: nobody runs a ${mode}-mode app's workers as nobody, with nobody's HOME`, { skip: asRoot }, async (t) => {
    const home = useSupHome(t)
    const port = await freePort()
    const flags = mode === 'cluster' ? ['-i', '2'] : []
    const started = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web', '--uid', 'nobody', ...flags], { env: { PORT: String(port) } })
    assert.equal(started.code, 0, started.stderr)
    const rows = await waitForRows(home, (r) => r.length > 0 && r.every((w) => w.status === 'online'), { what: 'web online' })
    for (const row of rows) assert.deepEqual(idsOf(/** @type {number} */ (row.pid)), { uid: 65534, gid: 65534 })
    assert.equal((await httpGet(port)).status, 200)
    const environ = readFileSync(`/proc/${rows[0].pid}/environ`, 'latin1').split('\0')
    assert.ok(environ.includes('HOME=/nonexistent'), 'nobody\'s HOME, not root\'s')
    assert.ok(environ.includes('USER=nobody'))
  })
}

test('a user the machine does not know refuses the start before anything runs', { skip: asRoot }, async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web', '--uid', 'no-such-user-here'])
  assert.equal(started.code, 1)
  assert.equal(started.stderr.trim(), 'sup: app "web": uid "no-such-user-here" names no user or group of this machine (getent passwd / getent group list them; a number works too)')
  assert.deepEqual(await home.ls(), [])
})
