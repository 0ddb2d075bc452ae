// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Outbox } from '../../../daemon/outbox.js'

/** Small limits, so frames of a few characters fill them. */
const LIMITS = { inflightBytes: 4, queuedBytes: 6, metricsFrames: 2 }

/** A socket that flushes only when the test says so. */
function setUp () {
  /** @type {string[]} */
  const sent = []
  /** @type {Array<() => void>} */
  const pending = []
  let disconnects = 0
  const outbox = new Outbox({
    send: (frame, done) => {
      sent.push(frame)
      pending.push(done)
    },
    disconnect: () => { disconnects++ }
  }, LIMITS)
  const flush = () => { for (const done of pending.splice(0)) done() }
  return { outbox, sent, flush, disconnects: () => disconnects }
}

describe('Outbox', () => {
  test('writes straight through while little is in flight', () => {
    const { outbox, sent } = setUp()
    outbox.push('ab')
    outbox.push('cd')
    assert.deepEqual(sent, ['ab', 'cd'])
    outbox.push('ef')
    assert.deepEqual(sent, ['ab', 'cd'], 'the third waits: 4 characters are in flight')
    assert.deepEqual(outbox.events, ['ef'])
  })

  test('queued frames follow, in order, as the socket drains', () => {
    const { outbox, sent, flush } = setUp()
    for (const f of ['ab', 'cd', 'e', 'f']) outbox.push(f)
    flush()
    assert.deepEqual(sent, ['ab', 'cd', 'e', 'f'])
    assert.equal(outbox.queuedBytes, 0)
  })

  test('a newer metrics frame of the same worker replaces the unsent one', () => {
    const { outbox, sent, flush } = setUp()
    outbox.push('xxxx')
    outbox.push('m1a', '1')
    outbox.push('m2a', '2')
    outbox.push('m1b', '1')
    assert.deepEqual([...outbox.metrics.values()], ['m2a', 'm1b'])
    assert.equal(outbox.dropped, 1)
    flush()
    assert.deepEqual(sent, ['xxxx', 'm2a', 'm1b'])
  })

  test('past its limit, the oldest metrics frame is dropped', () => {
    const { outbox } = setUp()
    outbox.push('xxxx')
    for (const id of ['1', '2', '3']) outbox.push(`m${id}`, id)
    assert.deepEqual([...outbox.metrics.keys()], ['2', '3'])
    assert.equal(outbox.dropped, 1)
  })

  test('log and state frames go before queued metrics', () => {
    const { outbox, sent, flush } = setUp()
    outbox.push('xxxx')
    outbox.push('m', '1')
    outbox.push('log')
    flush()
    assert.deepEqual(sent, ['xxxx', 'log', 'm'])
  })

  test('a subscriber too far behind is disconnected once, and its queue let go', () => {
    const { outbox, disconnects } = setUp()
    outbox.push('xxxx')
    outbox.push('abc')
    outbox.push('def')
    assert.equal(disconnects(), 0, '6 characters queued is still within the limit')
    outbox.push('g')
    assert.equal(disconnects(), 1)
    assert.deepEqual(outbox.events, [])
    outbox.push('more')
    assert.equal(disconnects(), 1)
    assert.deepEqual(outbox.events, [])
  })
})
