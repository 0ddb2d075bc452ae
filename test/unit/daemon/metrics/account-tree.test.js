// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { accountTree } from '../../../../daemon/metrics/account-tree.js'

/** @param {Record<number, [number, number]>} entries pid → [ctime ms, rss bytes] */
const usage = (entries) => new Map(Object.entries(entries).map(([pid, [ctime, memory]]) => [Number(pid), { ctime, memory }]))

describe('accountTree', () => {
  test('the first reading has no CPU % yet, and charges the CPU time so far', () => {
    const result = accountTree(null, 10, [10, 11], usage({ 10: [300, 1000], 11: [200, 500] }), 5000)
    assert.deepEqual(result?.figures, { cpu: 0, cpuSeconds: 0.5, memory: 1500, processes: 2 })
  })

  /** @type {Array<[string, Record<number, [number, number]>, number[], { cpu: number, cpuSeconds: number, memory: number, processes: number }]>} */
  const rows = [
    ['the tree used 500 ms of CPU in 1 s: 50%', { 10: [700, 1000], 11: [300, 500] }, [10, 11], { cpu: 50, cpuSeconds: 1.0, memory: 1500, processes: 2 }],
    ['a child that exited keeps its CPU time in the counter', { 10: [400, 1000] }, [10], { cpu: 10, cpuSeconds: 0.6, memory: 1000, processes: 1 }],
    ['a new child is charged in full', { 10: [300, 1000], 11: [200, 500], 12: [50, 100] }, [10, 11, 12], { cpu: 5, cpuSeconds: 0.55, memory: 1600, processes: 3 }],
    ['a reused pid (CPU time went back) counts as new', { 10: [300, 1000], 11: [20, 500] }, [10, 11], { cpu: 2, cpuSeconds: 0.52, memory: 1500, processes: 2 }],
    ['a descendant that vanished between the walk and the read is skipped', { 10: [400, 1000] }, [10, 11], { cpu: 10, cpuSeconds: 0.6, memory: 1000, processes: 1 }],
    ['more than one core shows above 100%', { 10: [1800, 1000], 11: [700, 500] }, [10, 11], { cpu: 200, cpuSeconds: 2.5, memory: 1500, processes: 2 }]
  ]
  for (const [name, now, pids, figures] of rows) {
    test(name, () => {
      const first = accountTree(null, 10, [10, 11], usage({ 10: [300, 1000], 11: [200, 500] }), 5000)
      const second = accountTree(first?.track ?? null, 10, pids, usage(now), 6000)
      assert.deepEqual(second?.figures, figures)
    })
  }

  test('a new root pid (the worker was replaced) starts a new count', () => {
    const first = accountTree(null, 10, [10], usage({ 10: [900, 1000] }), 5000)
    const second = accountTree(first?.track ?? null, 20, [20], usage({ 20: [100, 800] }), 6000)
    assert.deepEqual(second?.figures, { cpu: 0, cpuSeconds: 0.1, memory: 800, processes: 1 })
  })

  test('a root that is gone gives no reading', () => {
    assert.equal(accountTree(null, 10, [10, 11], usage({ 11: [1, 1] }), 5000), null)
  })
})
