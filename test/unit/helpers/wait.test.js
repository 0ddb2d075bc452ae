// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { writeFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { quietFor, settle, waitFor, waitForEvent, within } from '../../helpers/wait.js'

describe('waitFor', () => {
  test('resolves with the first truthy value once the predicate turns true', async () => {
    let calls = 0
    const value = await waitFor(() => ++calls >= 3 && { calls }, { what: 'the third call', interval: 1 })
    assert.deepEqual(value, { calls: 3 })
  })

  test('awaits an async predicate', async () => {
    let calls = 0
    const value = await waitFor(async () => ++calls >= 3 && 'there', { what: 'the answer', interval: 1 })
    assert.equal(value, 'there')
  })

  test('times out with a message naming what was awaited and the last value seen', async () => {
    let n = 0
    await assert.rejects(waitFor(() => { n++; return n < 0 && n }, { what: 'a negative count', timeout: 50, interval: 5, show: () => `n=${n}` }),
      (/** @type {Error} */ err) => {
        assert.match(err.message, /^timed out after 50 ms waiting for a negative count; last seen: n=\d+$/)
        return true
      })
    await assert.rejects(waitFor(() => 0, { what: 'a count', timeout: 30 }),
      { message: 'timed out after 30 ms waiting for a count; last seen: 0' })
  })

  test('a check that throws fails the wait at once (an assertion in it stays an assertion)', async () => {
    let calls = 0
    await assert.rejects(waitFor(() => { calls++; assert.equal(calls, 0, 'the check asserts') }, { what: 'never', timeout: 5000 }),
      { name: 'AssertionError', message: /^the check asserts/ })
    await assert.rejects(waitFor(async () => { calls++; throw new Error('EACCES') }, { what: 'never', timeout: 5000 }), { message: 'EACCES' })
    assert.equal(calls, 2)
  })

  test('gives up when the caller aborts', async () => {
    await assert.rejects(waitFor(() => false, { what: 'never', signal: AbortSignal.abort() }), { message: /^aborted waiting for never/ })
  })
})

describe('waitForEvent', () => {
  test('resolves with the arguments of the event that passes the filter', async () => {
    const emitter = new EventEmitter()
    const waiting = waitForEvent(emitter, 'state', { what: 'online', filter: (state) => state === 'online' })
    emitter.emit('state', 'starting', 1)
    emitter.emit('state', 'online', 2)
    assert.deepEqual(await waiting, ['online', 2])
    assert.equal(emitter.listenerCount('state'), 0, 'the listener is removed')
  })

  test('times out with the last arguments seen', async () => {
    const emitter = new EventEmitter()
    const waiting = waitForEvent(emitter, 'state', { what: 'worker online', timeout: 30, filter: (state) => state === 'online' })
    emitter.emit('state', 'errored')
    await assert.rejects(waiting, { message: "timed out after 30 ms waiting for worker online; last seen: [ 'errored' ]" })
    assert.equal(emitter.listenerCount('state'), 0, 'the listener is removed')
  })

  test('says when no event came at all', async () => {
    await assert.rejects(waitForEvent(new EventEmitter(), 'exit', { what: 'the exit', timeout: 20 }),
      { message: 'timed out after 20 ms waiting for the exit; last seen: no exit event' })
  })
})

describe('within', () => {
  test('passes the result through, and fails a promise that does not settle in time', async () => {
    assert.equal(await within(Promise.resolve(7), { what: 'seven' }), 7)
    await assert.rejects(within(new Promise(() => {}), { what: 'the close', timeout: 20 }),
      { message: 'timed out after 20 ms waiting for the close; last seen: still pending' })
  })
})

describe('settle', () => {
  test('waits out a chain of scheduled callbacks and promises, however long', async () => {
    let done = false
    const hop = (/** @type {number} */ n) => setImmediate(async () => {
      await Promise.resolve()
      if (n === 0) done = true
      else hop(n - 1)
    })
    hop(20)
    await settle()
    assert.equal(done, true)
  })

  test('waits for file I/O in flight', async (t) => {
    const file = join(tmpdir(), `sup-settle-${process.pid}`)
    t.after(() => rm(file, { force: true }))
    let written = false
    writeFile(file, 'x'.repeat(1 << 20)).then(() => writeFile(file, 'y')).then(() => { written = true })
    await settle()
    assert.equal(written, true)
  })

  test('does not wait for timers, and fails at its deadline naming what is still in flight', async () => {
    const timer = setTimeout(() => {}, 60_000)
    await settle()
    clearTimeout(timer)
    let stop = false
    const spin = () => { if (!stop) setImmediate(spin) }
    spin()
    await assert.rejects(settle({ timeout: 30 }), { message: /^timed out after 30 ms waiting for scheduled callbacks and file I\/O to finish; last seen: still in flight: Immediate/ })
    stop = true
  })
})

test('quietFor lets the window pass and insists on its reason', async () => {
  const start = performance.now()
  await quietFor(30, 'nothing to happen')
  assert.ok(performance.now() - start >= 29)
  await assert.rejects(quietFor(1, ''), { message: /needs the reason/ })
})
