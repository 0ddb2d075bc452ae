// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SampleHistory } from '../../../../daemon/metrics/history.js'

/** @param {number} t */
const sample = (t) => ({ time: t, cpu: t / 10, memory: t * 100, loop_p99: t % 2 === 0 ? t : null, heap_used: null })

test('keeps the newest samples up to its capacity, oldest first', () => {
  const history = new SampleHistory(3)
  for (const t of [1, 2, 3, 4, 5]) history.push(sample(t))
  assert.deepEqual(history.last(), { time: [3, 4, 5], cpu: [0.3, 0.4, 0.5], memory: [300, 400, 500], loop_p99: [null, 4, null], heap_used: [null, null, null] })
})

test('last(n) gives at most what it has', () => {
  const history = new SampleHistory(10)
  history.push(sample(1))
  history.push(sample(2))
  assert.deepEqual(history.last(1).time, [2])
  assert.deepEqual(history.last(50).time, [1, 2])
  assert.deepEqual(history.last(0).time, [])
})

test('an empty history gives empty columns', () => {
  assert.deepEqual(new SampleHistory(4).last().cpu, [])
})
