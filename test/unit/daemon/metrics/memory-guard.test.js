// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import pino from 'pino'
import { exceedsMemoryLimit, guardMemory } from '../../../../daemon/metrics/memory-guard.js'
import { settle } from '../../../helpers/wait.js'

const MB = 1024 * 1024

/** @type {Array<[string, number | null, string, number, boolean]>} */
const rows = [
  ['over the limit while online', 200 * MB, 'online', 201 * MB, true],
  ['exactly at the limit', 200 * MB, 'online', 200 * MB, false],
  ['under the limit', 200 * MB, 'online', 10 * MB, false],
  ['no limit', null, 'online', 10_000 * MB, false],
  ['already being replaced (stopping)', 200 * MB, 'stopping', 300 * MB, false],
  ['still starting', 200 * MB, 'starting', 300 * MB, false]
]
for (const [name, limit, status, memory, expected] of rows) {
  test(`exceedsMemoryLimit: ${name}`, () => assert.equal(exceedsMemoryLimit(limit, status, memory), expected))
}

test('guardMemory replaces the worker a sample finds over its limit, and only that one', () => {
  const sampler = new EventEmitter()
  /** @type {number[]} */
  const replaced = []
  /** @type {Array<() => void>} */
  const finish = []
  guardMemory({ sampler, logger: pino({ level: 'silent' }), replace: async (w) => { replaced.push(w.id); await new Promise((resolve) => finish.push(() => resolve(undefined))) } })
  /** @param {number} id @param {number} memory */
  const worker = (id, memory) => ({ id, instance: 0, app: { config: { name: 'a', max_memory_restart: 100 * MB } }, state: { status: 'online' }, usage: { memory, processes: 1 } })
  const big = worker(2, 150 * MB)
  sampler.emit('sample', worker(1, 50 * MB))
  sampler.emit('sample', big)
  assert.deepEqual(replaced, [2])
})

test('guardMemory asks once while a graceful replace is under way, again once it is over', async () => {
  const sampler = new EventEmitter()
  /** @type {number[]} */
  const replaced = []
  /** @type {Array<() => void>} */
  const finish = []
  guardMemory({ sampler, logger: pino({ level: 'silent' }), replace: (w) => { replaced.push(w.id); return new Promise((resolve) => finish.push(() => resolve(undefined))) } })
  const big = { id: 7, instance: 0, app: { config: { name: 'a', max_memory_restart: 100 * MB } }, state: { status: 'online' }, usage: { memory: 150 * MB, processes: 1 } }
  sampler.emit('sample', big)
  sampler.emit('sample', big)
  assert.deepEqual(replaced, [7], 'the old worker is still online while its successor starts')
  finish[0]()
  await settle()
  sampler.emit('sample', big)
  assert.deepEqual(replaced, [7, 7])
})
