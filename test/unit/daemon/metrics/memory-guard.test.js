// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import pino from 'pino'
import { exceedsMemoryLimit, guardMemory, replaceOnce } from '../../../../daemon/metrics/memory-guard.js'
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

/**
 * The guard's decisions, carried out as the Supervisor does (replaceOnce).
 * @param {EventEmitter} sampler
 * @param {(worker: any) => Promise<unknown>} replace
 */
function guard (sampler, replace) {
  guardMemory({ sampler, usage: { get: (/** @type {any} */ w) => w.usage } }).on('decision', replaceOnce((d) => replace(d.worker), pino({ level: 'silent' })))
}

test('guardMemory replaces the worker a sample finds over its limit, and only that one', () => {
  const sampler = new EventEmitter()
  /** @type {number[]} */
  const replaced = []
  /** @type {Array<() => void>} */
  const finish = []
  guard(sampler, async (w) => { replaced.push(w.id); await new Promise((resolve) => finish.push(() => resolve(undefined))) })
  /** @param {number} id @param {number} memory */
  const worker = (id, memory) => ({ id, instance: 0, config: { name: 'a', max_memory_restart: 100 * MB }, state: { status: 'online' }, usage: { memory, processes: 1 } })
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
  guard(sampler, (w) => { replaced.push(w.id); return new Promise((resolve) => finish.push(() => resolve(undefined))) })
  const big = { id: 7, instance: 0, config: { name: 'a', max_memory_restart: 100 * MB }, state: { status: 'online' }, usage: { memory: 150 * MB, processes: 1 } }
  sampler.emit('sample', big)
  sampler.emit('sample', big)
  assert.deepEqual(replaced, [7], 'the old worker is still online while its successor starts')
  finish[0]()
  await settle()
  sampler.emit('sample', big)
  assert.deepEqual(replaced, [7, 7])
})

test('the guard only decides: a decision names the worker and its figures, and nothing is replaced without a taker', () => {
  const sampler = new EventEmitter()
  /** @type {any[]} */
  const decisions = []
  guardMemory({ sampler, usage: { get: (/** @type {any} */ w) => w.usage } }).on('decision', (d) => decisions.push(d))
  const big = { id: 3, instance: 0, config: { name: 'a', max_memory_restart: 100 * MB }, state: { status: 'online' }, usage: { memory: 150 * MB, processes: 2 } }
  sampler.emit('sample', big)
  assert.deepEqual(decisions, [{ action: 'replace', worker: big, memory: 150 * MB, limit: 100 * MB, processes: 2 }])
})
