// @ts-check
// PM2's restart habits against a real daemon (issue 9): ids and restart counts across reload,
// ids from 0 after `delete all`, `start` of what exists, config changes on restart/reload of a
// config file, --update-env / --env / --node-args / --watch on restart, startOrRestart and
// startOrReload, watch off on stop.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { APPS, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { join } from 'node:path'

const HTTP = join(APPS, 'http-server.js')

test('reload keeps each instance\'s id and adds 1 to its count; delete all makes ids start from 0 again', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const env = { PORT: String(port) }
  assert.equal((await home.sup(['start', HTTP, '-i', '2', '--name', 'web'], { env })).code, 0)
  const before = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'web online' })

  const reload = await home.sup(['reload', 'web'])
  assert.equal(reload.code, 0, reload.stderr)
  const after = await home.ls()
  assert.deepEqual(after.map((r) => [r.id, r.instance, r.restarts]), before.map((r) => [r.id, r.instance, 1]))
  assert.ok(after.every((r) => !before.some((b) => b.pid === r.pid)), 'new processes')
  assert.equal((await home.sup(['reload', 'web'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.restarts), [2, 2])

  // The spare ids of the retiring workers were not handed out: the next app gets id 2.
  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'other'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.id]), [['web', 0], ['web', 1], ['other', 2]])

  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'again'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.id]), [['again', 0]])
})
