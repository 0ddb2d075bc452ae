// @ts-check
// The stores of what is known of each worker: empty until written, one value per worker (not
// per id: a reload hands an id on), back to empty when cleared.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { WorkerStore, createWorkerStores } from '../../../../daemon/app/worker-stores.js'
import { emptyUsage } from '../../../../daemon/metrics/usage.js'

/** @type {Array<[string, (store: WorkerStore<number>, a: object, b: object) => unknown, unknown]>} */
const rows = [
  ['nothing written: the empty value', (store, a) => store.get(a), 0],
  ['written: that value', (store, a) => { store.set(a, 5); return store.get(a) }, 5],
  ['another worker is not touched', (store, a, b) => { store.set(a, 5); return store.get(b) }, 0],
  ['the last write wins', (store, a) => { store.set(a, 5); store.set(a, 6); return store.get(a) }, 6],
  ['cleared: empty again', (store, a) => { store.set(a, 5); store.clear(a); return store.get(a) }, 0],
  ['two workers that share an id are two entries', (store) => { const old = { id: 3 }; const successor = { id: 3 }; store.set(old, 1); return store.get(successor) }, 0]
]
for (const [name, act, expected] of rows) {
  test(`WorkerStore: ${name}`, () => assert.deepEqual(act(new WorkerStore(() => 0), {}, {}), expected))
}

test('the daemon\'s stores start empty: no figures, no report, no verdicts, no gate', () => {
  const stores = createWorkerStores()
  const worker = {}
  assert.deepEqual(stores.usage.get(worker), emptyUsage())
  assert.equal(stores.agent.get(worker), null)
  assert.deepEqual(stores.probes.get(worker), { readiness: null, liveness: null })
  assert.equal(stores.gates.get(worker), null)
})

test('the empty value is made anew each time: writing into it changes nothing stored', () => {
  const stores = createWorkerStores()
  const worker = {}
  stores.usage.get(worker).cpu = 99
  assert.equal(stores.usage.get(worker).cpu, 0)
})
