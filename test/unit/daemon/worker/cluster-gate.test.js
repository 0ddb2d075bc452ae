// @ts-check
// A cluster worker gated by agent/gate.cjs runs nothing of the app (its own preloads included)
// until the daemon sends a line on its stdin, then runs as before, without the gate's variable.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { test } from 'node:test'
import { GATE_PATH } from '../../../../daemon/worker/spawn.js'
import { openGate } from '../../../../daemon/worker/gate.js'
import { quietFor } from '../../../helpers/wait.js'

const SCRIPT = 'process.stdout.write(JSON.stringify({ ran: true, gate: process.env.SUP_CGROUP_GATE ?? null }))'

/** @param {Record<string, string>} env */
function node (env) {
  const child = spawn(process.execPath, ['--require', GATE_PATH, '-e', SCRIPT], { stdio: ['pipe', 'pipe', 'inherit'], env })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  return { child, out: () => out }
}

test('gated: nothing runs until the line comes, then the app runs without SUP_CGROUP_GATE', async () => {
  const { child, out } = node({ SUP_CGROUP_GATE: '1' })
  await quietFor(500, 'the app must not run while the gate is closed')
  assert.equal(out(), '')
  openGate(child.stdin)
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  assert.deepEqual(JSON.parse(out()), { ran: true, gate: null })
})

test('not gated: the preload does nothing', async () => {
  const { child, out } = node({})
  const [code] = await once(child, 'exit')
  assert.equal(code, 0)
  assert.deepEqual(JSON.parse(out()), { ran: true, gate: null })
})

test('a daemon gone before the line (stdin closed): the app runs, as it would have without a gate', async () => {
  const { child, out } = node({ SUP_CGROUP_GATE: '1' })
  child.stdin.end()
  await once(child, 'exit')
  assert.deepEqual(JSON.parse(out()), { ran: true, gate: null })
})
