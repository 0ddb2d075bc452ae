// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createHostSampler } from '../../../../client/monit/host.js'

test('the host sampler gives the busy share of all cores since its last call, memory in use and load', () => {
  const cpu = (/** @type {number} */ busy, /** @type {number} */ idle) => ({ model: '', speed: 0, times: { user: busy, nice: 0, sys: 0, idle, irq: 0 } })
  let now = [cpu(100, 900), cpu(100, 900)]
  const sample = createHostSampler({ cpus: () => now, totalmem: () => 8000, freemem: () => 2000, loadavg: () => [1.5, 1, 0.5] })
  assert.deepEqual(sample(), { cpu: null, cores: 2, used: 6000, total: 8000, load: [1.5, 1, 0.5] }, 'no share before a second call')
  // 300 busy of 400 on one core, 100 of 400 on the other: half of all cores.
  now = [cpu(400, 1000), cpu(200, 1200)]
  assert.equal(sample().cpu, 50)
})
