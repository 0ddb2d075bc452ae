// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { PassThrough } from 'node:stream'
import { describe, test } from 'node:test'
import { MAX_WAIT_MS, TARGET_BYTES, TARGET_LINES, batchReads, waitFor } from '../../../../daemon/logs/batch-reads.js'

describe('waitFor', () => {
  const cases = [
    { name: 'a stream that has said nothing waits the longest', lines: 0, bytes: 0, wait: MAX_WAIT_MS },
    { name: 'a slow stream (1 line of 200 B per 100 ms) waits the longest', lines: 0.01, bytes: 2, wait: MAX_WAIT_MS },
    { name: 'short lines: the line count decides', lines: 4, bytes: 400, wait: TARGET_LINES / 4 },
    { name: 'long lines: the byte count decides', lines: 2, bytes: 8192, wait: Math.round(TARGET_BYTES / 8192) },
    { name: 'a stream faster than a read per ms is read at once', lines: 200, bytes: 46_000, wait: 0 },
    { name: 'a partial line (bytes, no newline yet)', lines: 0, bytes: TARGET_BYTES / 10, wait: 10 }
  ]
  for (const { name, lines, bytes, wait } of cases) {
    test(name, () => assert.equal(waitFor(lines, bytes), wait))
  }
})

describe('batchReads', () => {
  test('a stream without a handle (not a socket) is read as it comes', async () => {
    const stream = new PassThrough()
    batchReads(stream)
    const chunks = []
    stream.on('data', (chunk) => chunks.push(String(chunk)))
    stream.write('a\n')
    stream.write('b\n')
    stream.end()
    await once(stream, 'end')
    assert.deepEqual(chunks, ['a\n', 'b\n'])
  })

  /**
   * A stream with a stand-in for net's handle, and timers that only record.
   * @returns {{ stream: PassThrough, handle: { reading: boolean, stops: number, starts: number, readStop: () => number, readStart: () => number }, waits: number[], fire: () => void }}
   */
  function fakeSocket () {
    const stream = new PassThrough()
    const handle = { reading: true, stops: 0, starts: 0, readStop () { this.stops++; return 0 }, readStart () { this.starts++; return 0 } }
    Object.assign(stream, { _handle: handle })
    /** @type {Array<() => void>} */
    const pending = []
    /** @type {number[]} */
    const waits = []
    let clock = 0
    const timers = { setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => { waits.push(ms); pending.push(fn); return pending.length }, clearTimeout: () => {} }
    batchReads(stream, { timers, now: () => (clock += 10) })
    stream.resume()
    return { stream, handle, waits, fire: () => { for (const fn of pending.splice(0)) fn() } }
  }

  test('after a small read the handle is stopped, and started again when the wait is over', async () => {
    const { stream, handle, waits, fire } = fakeSocket()
    stream.write('one line\n')
    await new Promise(setImmediate)
    assert.equal(handle.stops, 1)
    assert.deepEqual(waits, [MAX_WAIT_MS])
    fire()
    assert.equal(handle.starts, 1)
  })

  test('a read that finds twice the target (a full socket: a flood or a late timer) reads on at once', async () => {
    const { stream, handle, waits } = fakeSocket()
    stream.write(Buffer.alloc(2 * TARGET_BYTES, 'x'))
    stream.write('x\n'.repeat(2 * TARGET_LINES))
    await new Promise(setImmediate)
    assert.equal(handle.stops, 0)
    assert.deepEqual(waits, [])
  })

  test('a stream net has stopped itself (its consumer paused) is not started by the timer', async () => {
    const { stream, handle, fire } = fakeSocket()
    stream.write('one line\n')
    await new Promise(setImmediate)
    handle.reading = false
    fire()
    assert.equal(handle.starts, 0)
  })

  test('a child writing a line per write at a steady 5 lines/ms: read in a few large reads, every line in order, to the end', async (t) => {
    const lines = 3000
    // One write per line, paced as a busy server logs requests: 5 lines each millisecond.
    const source = `const line = (n) => n + ':' + 'x'.repeat(90) + '\\n'
      const t0 = performance.now(); let n = 0
      const tick = () => { const due = Math.min(${lines}, Math.floor((performance.now() - t0) * 5)); while (n < due) process.stdout.write(line(++n)); if (n < ${lines}) setImmediate(tick) }
      tick()`
    const child = spawn(process.execPath, ['-e', source], { stdio: ['ignore', 'pipe', 'inherit'] })
    t.after(() => child.kill('SIGKILL'))
    batchReads(/** @type {import('node:stream').Readable} */ (child.stdout))
    let reads = 0
    let text = ''
    child.stdout.on('data', (/** @type {Buffer} */ chunk) => {
      reads++
      text += chunk
    })
    await once(child.stdout, 'end')
    const got = text.split('\n').slice(0, -1).map((line) => Number(line.split(':')[0]))
    assert.equal(got.length, lines)
    assert.deepEqual(got.filter((n, i) => n !== i + 1), [], 'every line, in order')
    // Read as they come, nearly every line is a read of its own; in batches, about TARGET_LINES a read.
    assert.ok(reads < lines / 8, `${reads} reads for ${lines} lines`)
  })

  test('a stream its consumer pauses is not restarted under it, and gets every line after resume', async (t) => {
    const child = spawn(process.execPath, ['-e', 'for (let i = 1; i <= 2000; i++) process.stdout.write(i + "\\n")'], { stdio: ['ignore', 'pipe', 'inherit'] })
    t.after(() => child.kill('SIGKILL'))
    const stdout = /** @type {import('node:stream').Readable} */ (child.stdout)
    batchReads(stdout)
    let text = ''
    let paused = false
    stdout.on('data', (/** @type {Buffer} */ chunk) => {
      text += chunk
      if (paused) return
      paused = true
      stdout.pause()
      setTimeout(() => stdout.resume(), 3 * MAX_WAIT_MS)
    })
    await once(stdout, 'end')
    const got = text.split('\n').slice(0, -1).map(Number)
    assert.deepEqual(got, Array.from({ length: 2000 }, (_, i) => i + 1))
  })
})
