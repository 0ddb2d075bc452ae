// @ts-check
// An app's limits as the files of its workers' cgroups (v2 and v1), the refusals, and what an
// OOM kill says.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { checkLimits, limitWrites, oomCause } from '../../../../daemon/cgroups/limits.js'
import { appConfig } from '../../../helpers/fake-effects.js'

describe('limitWrites', () => {
  const limited = appConfig({ max_memory: 64 * 1048576, memory_high: 48 * 1048576, cpu_limit: 1.5, max_pids: 32 })
  const cases = [
    { name: 'v2 memory: max, no swap, the whole group on OOM, high', controller: 'memory', version: 2, expect: [['memory.max', '67108864'], ['memory.swap.max', '0'], ['memory.oom.group', '1'], ['memory.high', '50331648']] },
    { name: 'v1 memory: the limit, with swap, and the soft limit for memory_high', controller: 'memory', version: 1, expect: [['memory.limit_in_bytes', '67108864'], ['memory.memsw.limit_in_bytes', '67108864'], ['memory.soft_limit_in_bytes', '50331648']] },
    { name: 'v2 cpu: quota and period in one file', controller: 'cpu', version: 2, expect: [['cpu.max', '150000 100000']] },
    { name: 'v1 cpu: the period first, then the quota', controller: 'cpu', version: 1, expect: [['cpu.cfs_period_us', '100000'], ['cpu.cfs_quota_us', '150000']] },
    { name: 'pids, either version', controller: 'pids', version: 1, expect: [['pids.max', '32']] },
    { name: 'cpuacct sets nothing', controller: 'cpuacct', version: 1, expect: [] }
  ]
  for (const c of cases) {
    test(c.name, () => {
      const writes = limitWrites(limited, /** @type {any} */ (c.controller), /** @type {1 | 2} */ (c.version))
      assert.deepEqual(writes.map((w) => [w.file, w.value]), c.expect)
    })
  }
  test('no limits, no writes', () => {
    for (const controller of /** @type {const} */ (['memory', 'cpu', 'pids'])) assert.deepEqual(limitWrites(appConfig(), controller, 2), [])
  })
  test('a tiny cpu_limit is the kernel\'s least quota, 1 ms', () => {
    assert.deepEqual(limitWrites(appConfig({ cpu_limit: 0.001 }), 'cpu', 2).map((w) => w.value), ['1000 100000'])
  })
})

describe('checkLimits', () => {
  test('a limit without its controller is refused, naming the key', () => {
    assert.throws(() => checkLimits(appConfig({ name: 'api', cpu_limit: 1 }), (c) => c === 'memory', 'not root'),
      (/** @type {any} */ err) => err.code === 'SUP_ERR_APP_LIMIT_UNSUPPORTED' && err.details.key === 'cpu_limit' && /not root/.test(err.message))
  })
  test('memory_high must be below max_memory', () => {
    assert.throws(() => checkLimits(appConfig({ max_memory: 100, memory_high: 100 }), () => true, ''), { code: 'SUP_ERR_APP_LIMITS_CONFLICT' })
    assert.doesNotThrow(() => checkLimits(appConfig({ max_memory: 100, memory_high: 99 }), () => true, ''))
  })
  test('an app without limits needs no controller', () => {
    assert.doesNotThrow(() => checkLimits(appConfig(), () => false, 'no cgroups'))
  })
})

test('an OOM kill names the limit; none, no cause', () => {
  assert.equal(oomCause(appConfig({ max_memory: 64 * 1048576 }), 1), 'OOM-killed by the kernel: over max_memory (64 MiB)')
  assert.equal(oomCause(appConfig({ max_memory: 64 * 1048576 }), 0), null)
})
