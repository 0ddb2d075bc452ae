// @ts-check
// Refuse early, once, clearly (issue 20): an app that cannot run at all is refused by the
// daemon before its first spawn, with a coded one-line error, instead of crash-looping with
// the reason in a stack trace; the same check guards apps that come from a dump.
import assert from 'node:assert/strict'
import { chmodSync, copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome } from '../helpers/sup.js'

/**
 * A folder of its own for scripts the test breaks.
 * @param {import('node:test').TestContext} t
 */
function scratch (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-preflight-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('a program that cannot be executed is refused by start before any spawn', async (t) => {
  const home = useSupHome(t)
  const dir = scratch(t)
  const script = join(dir, 'run.sh')
  writeFileSync(script, '#!/bin/sh\nsleep 100\n', { mode: 0o644 })
  const start = await home.sup(['start', script, '--interpreter', 'none', '--name', 'run'])
  assert.equal(start.code, 1)
  assert.equal(start.stderr, `sup: app "run" cannot start: ${script} cannot be executed (EACCES); make it executable (chmod u+x ${script}) or name an interpreter\n`)
  assert.deepEqual(await home.ls(), [], 'refused: nothing registered, nothing to crash-loop')
  assert.doesNotMatch(readFileSync(home.paths.daemonLog, 'utf8'), /could not start the process/, 'no spawn was tried')
})

test('an interpreter that is nowhere on PATH is refused by start', async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', join(APPS, 'worker.py'), '--interpreter', 'sup-no-such-python', '--name', 'py'])
  assert.equal(start.code, 1)
  assert.equal(start.stderr, 'sup: no sup-no-such-python for app "py": "sup-no-such-python" is not on the PATH sup start was run with; install it, or set interpreter to its full path\n')
  assert.deepEqual(await home.ls(), [])
})

test('a script its user cannot read (mode 000) is refused by start', { skip: process.getuid?.() === 0 && 'root reads any file' }, async (t) => {
  const home = useSupHome(t)
  const dir = scratch(t)
  const script = join(dir, 'app.js')
  copyFileSync(join(APPS, 'signal-logger.js'), script)
  chmodSync(script, 0o000)
  const start = await home.sup(['start', script])
  assert.equal(start.code, 1)
  assert.equal(start.stderr, `sup: app "app" cannot start: its script ${script} cannot be read (EACCES); give the user sup runs as read access (chmod u+r ${script})\n`)
  assert.deepEqual(await home.ls(), [])
})

test('a saved app whose script is gone is kept stopped by resurrect, said once, never spawned', async (t) => {
  const home = useSupHome(t)
  const dir = scratch(t)
  const script = join(dir, 'gone.js')
  copyFileSync(join(APPS, 'signal-logger.js'), script)
  assert.equal((await home.sup(['start', script])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'signal-logger.js'), '--name', 'fine'])).code, 0)
  assert.equal((await home.sup(['save'])).code, 0)
  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  rmSync(script)

  const resurrect = await home.sup(['resurrect'])
  assert.equal(resurrect.code, 0, resurrect.stderr)
  assert.match(resurrect.stderr, new RegExp(`^sup: warning: gone was not started: script "${script}" not found \\(looked in .*\\)$`, 'm'))
  const rows = await home.ls()
  const gone = rows.find((r) => r.name === 'gone')
  assert.deepEqual(gone && { status: gone.status, pid: gone.pid, restarts: gone.restarts }, { status: 'stopped', pid: null, restarts: 0 })
  assert.ok(rows.some((r) => r.name === 'fine' && r.pid !== null), 'the other app starts')
  assert.doesNotMatch(readFileSync(home.paths.daemonLog, 'utf8'), /could not start the process/)
  assert.doesNotMatch((await home.sup(['ls'])).stderr, /gone was not started/, 'said by resurrect, not again by ls')
})
