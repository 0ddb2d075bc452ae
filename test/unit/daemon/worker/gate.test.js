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

/**
 * @param {string} script
 * @param {Record<string, string>} [env]
 */
function gated (script, env = {}) {
  const { command, args } = withGate({ command: process.execPath, args: ['-e', script] }, env)
  return spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'], env })
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

for (const env of [{ A: '1' }, { A: '1', PWD: '/somewhere/else' }]) {
  test(`the command sees exactly the environment given (${env.PWD ? 'PWD kept as given' : 'no PWD added'})`, { skip: process.platform === 'win32' && 'needs /bin/sh' }, async () => {
    const child = gated('process.stdout.write(JSON.stringify(process.env))', env)
    let out = ''
    child.stdout.on('data', (d) => { out += d })
    openGate(child.stdin)
    await once(child, 'exit')
    assert.deepEqual(JSON.parse(out), env)
  })
}
