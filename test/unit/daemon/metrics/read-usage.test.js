// @ts-check
// Both usage readers against real processes: our own /proc reader (Linux) and the pidusage
// one (the other platforms), with a command name that holds spaces and parentheses, and a pid
// that has ended.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { createUsageReader, parseStatUsage, PidusageReader, ProcStatReader } from '../../../../daemon/metrics/read-usage.js'
import { waitForEvent } from '../../../helpers/wait.js'

const linux = process.platform === 'linux'

test('parseStatUsage counts fields from the last ")" of the command name', () => {
  // Fields after the name: state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime ... rss (24).
  const tail = 'S 1 1 1 0 -1 0 0 0 0 0 250 50 0 0 20 0 1 0 100 1000 300'
  assert.deepEqual(parseStatUsage(`42 (a) b (c)) ${tail}`, 4096), { ctime: 3000, memory: 300 * 4096 })
  assert.equal(parseStatUsage('42 (x) S 1 2', 4096), null)
})

test('the /proc reader gives our own CPU time and RSS, and leaves out a pid that ended', { skip: !linux && 'no /proc here' }, async () => {
  const reader = new ProcStatReader('/proc')
  try {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
    await waitForEvent(child, 'spawn', { what: 'child spawn' })
    const first = await reader.read([process.pid, /** @type {number} */ (child.pid)])
    const own = first.get(process.pid)
    assert.ok(own && own.ctime > 0 && own.memory > 1024 * 1024, JSON.stringify(own))
    assert.ok(first.has(/** @type {number} */ (child.pid)))
    child.kill('SIGKILL')
    await waitForEvent(child, 'exit', { what: 'child exit' })
    const second = await reader.read([process.pid, /** @type {number} */ (child.pid)])
    assert.ok(second.has(process.pid))
    assert.equal(second.has(/** @type {number} */ (child.pid)), false, 'an ended pid is absent')
  } finally {
    reader.close()
  }
})

test('the pidusage reader gives the same figures and leaves out a pid that ended', async () => {
  const reader = new PidusageReader(1000)
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'])
  await waitForEvent(child, 'spawn', { what: 'child spawn' })
  const pid = /** @type {number} */ (child.pid)
  try {
    const first = await reader.read([process.pid, pid])
    const own = first.get(process.pid)
    assert.ok(own && own.ctime > 0 && own.memory > 1024 * 1024, JSON.stringify(own))
    assert.ok(first.has(pid))
  } finally {
    child.kill('SIGKILL')
    await waitForEvent(child, 'exit', { what: 'child exit' })
  }
  const gone = await reader.read([pid])
  assert.equal(gone.has(pid), false)
  assert.deepEqual(await reader.read([]), new Map())
})

test('createUsageReader picks the /proc reader on Linux only', () => {
  const reader = createUsageReader({ interval: 1000 })
  assert.equal(reader instanceof ProcStatReader, linux)
  reader.close()
})
