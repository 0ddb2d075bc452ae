// @ts-check
// A worker's `deleted` row is the last app.state a subscriber hears of it: a state after it
// would put a ghost back in `sup monit`, `sup ls --watch` and the fleet (docs/protocol.md).
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

/** @typedef {import('../../ipc/methods.js').WorkerRow} WorkerRow */

test('nothing of a worker follows its deleted row on app.state: scale-down, reload and delete', async (t) => {
  const home = useSupHome(t)
  const port = await freePort(2)
  const markerPort = port + 1
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '--name', 'web'], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForRows(home, (rows) => rows.filter((r) => r.status === 'online').length === 2, { what: 'two web workers online' })

  const conn = await home.connect()
  t.after(() => conn.close())
  /** @type {WorkerRow[]} */
  const rows = []
  conn.on('event', (topic, data) => { if (topic === 'app.state') rows.push(data) })
  await conn.request('subscribe', { topics: ['app.state'] })

  for (const args of [['scale', 'web', '1'], ['reload', 'web'], ['delete', 'web']]) {
    const done = await home.sup(args)
    assert.equal(done.code, 0, `sup ${args.join(' ')}: ${done.stderr}`)
  }
  // One socket keeps the daemon's order: once a later app's online row is here, anything the
  // daemon said of web's workers before it is here too.
  const marker = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'marker'], { env: { PORT: String(markerPort) } })
  assert.equal(marker.code, 0, marker.stderr)
  const show = () => rows.map((r) => `${r.name}:${r.id}:${r.status}`).join(' ')
  await waitFor(() => rows.some((r) => r.name === 'marker' && r.status === 'online'), { what: 'the marker app online on the subscription', timeout: 30_000, show })

  const web = rows.filter((r) => r.name === 'web')
  const deleted = web.filter((r) => r.status === 'deleted')
  // The retired one of the scale-down, the one the reload replaced, and the last one.
  assert.equal(deleted.length, 3, show())
  for (const gone of deleted) {
    const after = web.slice(web.indexOf(gone) + 1).filter((r) => r.id === gone.id)
    assert.deepEqual(after.map((r) => r.status), [], `web:${gone.id} after its deleted row: ${show()}`)
  }
})
