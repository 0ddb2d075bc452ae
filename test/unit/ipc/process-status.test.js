// @ts-check
// isProcessRunning: a zombie is a dead process, a zombie main thread with threads still
// exiting is not (its files, a daemon's listening socket among them, are still open).
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { test } from 'node:test'
import { isProcessRunning } from '../../../ipc/process-status.js'

const ZOMBIES = fileURLToPath(new URL('../../fixtures/procs/zombies.py', import.meta.url))

/**
 * Run zombies.py in `mode`; resolves with the pid it prints. Killed after the test.
 * @param {import('node:test').TestContext} t
 * @param {'zombie' | 'main-thread'} mode
 */
async function pidIn (t, mode) {
  const child = spawn('python3', [ZOMBIES, mode], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(async () => {
    // Its stdin ends: the zombie's parent reaps it and exits. Killed if it has not by then.
    const exited = child.exitCode === null && child.signalCode === null ? once(child, 'exit') : null
    child.stdin.end()
    const timer = setTimeout(() => child.kill('SIGKILL'), 5000)
    await exited
    clearTimeout(timer)
  })
  const [line] = await once(child.stdout, 'data')
  return Number.parseInt(String(line), 10)
}

/** @param {number} pid */
const stateOf = (pid) => /^State:\s*(\S)/m.exec(readFileSync(`/proc/${pid}/status`, 'latin1'))?.[1]

test('a running process is running; a pid with no process is not', () => {
  assert.equal(isProcessRunning(process.pid), true)
  // Above the kernel's pid_max (at most 2^22): never a process.
  assert.equal(isProcessRunning(2 ** 22 + 1), false)
})

test('a zombie (exited, not reaped) is not running', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const pid = await pidIn(t, 'zombie')
  assert.equal(stateOf(pid), 'Z')
  assert.equal(isProcessRunning(pid), false)
})

test('a zombie main thread while another thread still runs is a running process', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const pid = await pidIn(t, 'main-thread')
  // The main thread's exit is its own syscall after the print: wait for it to land.
  const deadline = Date.now() + 10_000
  while (stateOf(pid) !== 'Z' && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal(stateOf(pid), 'Z', 'the main thread has exited')
  assert.equal(isProcessRunning(pid), true)
  process.kill(pid, 'SIGKILL')
  while (isProcessRunning(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10))
  assert.equal(isProcessRunning(pid), false, 'gone once its last thread is')
})
