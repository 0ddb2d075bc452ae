// @ts-check
// A gated fork-mode process runs nothing of the user's until the daemon lets it go (after it
// put the process in its cgroup), keeps its pid through the exec, and runs nothing at all when
// the daemon goes away first.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { test } from 'node:test'
import { openGate, withGate } from '../../../../daemon/worker/gate.js'
import { quietFor } from '../../../helpers/wait.js'

/** @param {string} script */
function gated (script) {
  const { command, args } = withGate({ command: process.execPath, args: ['-e', script] })
  return spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] })
}

test('the command runs only once the gate opens, under the same pid, with stdin from /dev/null', { skip: process.platform === 'win32' && 'needs /bin/sh' }, async () => {
  const child = gated('process.stdout.write(process.pid + " " + require("node:fs").readFileSync(0, "utf8").length)')
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  await quietFor(500, 'nothing may run while the gate is closed')
  assert.equal(out, '', 'nothing ran before the gate opened')
  openGate(child.stdin)
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  assert.equal(out, `${child.pid} 0`)
})

test('a gate whose daemon went away runs nothing', { skip: process.platform === 'win32' && 'needs /bin/sh' }, async () => {
  const child = gated('process.stdout.write("ran")')
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stdin.destroy()
  const [code] = await once(child, 'exit')
  assert.equal(code, 125)
  assert.equal(out, '')
})
