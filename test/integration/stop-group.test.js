// @ts-check
// The stop signal reaches the worker's whole process group (issue 20), as PM2's tree kill
// does: an app started as `npm start` (a shell, npm, a shell, then the server) shuts down
// gracefully at `sup stop` instead of npm alone hearing SIGINT and the server dying of
// SIGKILL at kill_timeout.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'
import { findOnPath } from '../../ipc/executables.js'

const DIR = join(APPS, 'npm-start')

test('an app started as `npm start` stops gracefully, in under a second', { skip: !findOnPath('npm') && 'npm is not on PATH' }, async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', 'npm start', '--cwd', DIR, '--name', 'npmapp'])
  assert.equal(start.code, 0, start.stderr)
  await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'npmapp online' })
  const out = join(home.paths.logs, 'npmapp-out.log')
  const log = () => existsSync(out) ? readFileSync(out, 'utf8') : ''
  await waitFor(() => /server ready on \d+/.test(log()), { what: 'the server behind npm to listen', timeout: 15_000 })

  // Timed over the socket (what `sup stop` sends), without a CLI's start-up.
  const conn = await home.connect()
  const began = Date.now()
  const [row] = await conn.request('app.stop', { targets: ['npmapp'] })
  const took = Date.now() - began
  await conn.close()
  assert.equal(row.status, 'stopped')
  // The server heard the signal itself and closed: not a SIGKILL at kill_timeout (5 s).
  await waitFor(() => /server closed gracefully on SIGINT/.test(log()), { what: 'the server\'s own graceful exit', timeout: 5000 })
  assert.ok(took < 1000, `sup stop took ${took} ms`)
})
