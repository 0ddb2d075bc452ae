// @ts-check
// PM2 behaviours its e2e scripts rely on (issue 9): text without a newline reaches the logs
// while the process runs.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitUntil } from '../helpers/procs.js'
import { APPS, isAlive, useSupHome } from '../helpers/sup.js'

test('stdout and stderr text without a newline reach the -l combined file while the process runs', async (t) => {
  const home = useSupHome(t)
  const combined = join(home.home, 'combined.log')
  const start = await home.sup(['start', join(APPS, 'partial-lines.js'), '-l', combined, '--merge-logs', '--min-uptime', '100'])
  assert.equal(start.code, 0, start.stderr)
  const [row] = await home.ls()
  const has = (/** @type {string} */ text) => existsSync(combined) && readFileSync(combined, 'utf8').includes(text)
  await waitUntil(() => has('errwrite') && has('outwrite'), 'both partial lines in the combined file', 5000)
  assert.ok(row.pid !== null && isAlive(row.pid), 'the process is still running')
  assert.equal((await home.ls())[0].pid, row.pid, 'and it is the same process')
})
