// @ts-check
// A worker's figures from its cgroup's files, v2 and v1, and CPU % from the kernel's counter.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { cgroupFiles, flatKeyed, readCgroupFigures } from '../../../../daemon/cgroups/usage.js'
import { accountCgroup } from '../../../../daemon/metrics/account-cgroup.js'

describe('flatKeyed', () => {
  const text = 'usage_usec 2500000\nuser_usec 2000000\nnr_throttled 7\n'
  const cases = [['usage_usec', 2500000], ['user_usec', 2000000], ['nr_throttled', 7], ['throttled_usec', 0], ['usec', 0]]
  for (const [key, value] of cases) test(`${key} → ${value}`, () => assert.equal(flatKeyed(text, String(key)), value))
  test('no file, no figure', () => assert.equal(flatKeyed(null, 'anon'), 0))
})

/** @param {Record<string, string>} files */
const reader = (files) => (/** @type {string} */ path) => files[path] ?? null

describe('readCgroupFigures', () => {
  test('v2: memory.current, anon + file_mapped, cpu.stat, throttling and OOM kills where limits are set', () => {
    const dir = { dir: '/cg/w', version: /** @type {const} */ (2) }
    const files = /** @type {NonNullable<ReturnType<typeof cgroupFiles>>} */ (cgroupFiles('/cg/w', { memory: dir, cpuacct: dir, cpu: dir }, { max_memory: 1, cpu_limit: 1 }))
    const read = reader({
      '/cg/w/memory.current': '5000\n',
      '/cg/w/memory.stat': 'anon 3000\nfile 1500\nkernel 300\nfile_mapped 500\n',
      '/cg/w/memory.events': 'low 0\nhigh 2\nmax 3\noom 1\noom_kill 1\n',
      '/cg/w/cpu.stat': 'usage_usec 2500000\nuser_usec 2000000\nsystem_usec 500000\nnr_periods 10\nnr_throttled 4\nthrottled_usec 300000\n',
      '/cg/w/cgroup.procs': '12\n13\n'
    })
    assert.deepEqual(readCgroupFigures(files, read), {
      figures: { memory: 5000, resident: 3500, anon: 3000, cpu_seconds: 2.5, throttled_periods: 4, throttled_seconds: 0.3, oom_kills: 1, processes: 2 },
      pids: [12, 13]
    })
  })
  test('v1 (hybrid): memory from memory.stat, CPU time from v2\'s cpu.stat, no limits no extra reads', () => {
    const memory = { dir: '/m/w', version: /** @type {const} */ (1) }
    const unified = { dir: '/u/w', version: /** @type {const} */ (2) }
    const files = /** @type {NonNullable<ReturnType<typeof cgroupFiles>>} */ (cgroupFiles('/u/w', { memory, cpuacct: unified, cpu: { dir: '/c/w', version: 1 } }, { max_memory: null, cpu_limit: null }))
    const asked = /** @type {string[]} */ ([])
    const files1 = reader({
      '/m/w/memory.stat': 'cache 100\nrss 900\nmapped_file 50\ntotal_cache 100\ntotal_rss 900\ntotal_mapped_file 50\n',
      '/u/w/cpu.stat': 'usage_usec 1000000\n',
      '/u/w/cgroup.procs': '7\n'
    })
    const figures = readCgroupFigures(files, (path) => { asked.push(path); return files1(path) })
    assert.deepEqual(figures?.figures, { memory: 1000, resident: 950, anon: 900, cpu_seconds: 1, throttled_periods: 0, throttled_seconds: 0, oom_kills: 0, processes: 1 })
    assert.deepEqual(asked.sort(), ['/m/w/memory.stat', '/u/w/cgroup.procs', '/u/w/cpu.stat'])
  })
  test('a cgroup already removed reads as none', () => {
    const dir = { dir: '/gone', version: /** @type {const} */ (2) }
    const files = /** @type {NonNullable<ReturnType<typeof cgroupFiles>>} */ (cgroupFiles('/gone', { memory: dir, cpuacct: dir }, { max_memory: null, cpu_limit: null }))
    assert.equal(readCgroupFigures(files, () => null), null)
  })
  test('without memory or CPU accounting there is nothing to read', () => {
    assert.equal(cgroupFiles('/u/w', { cpuacct: { dir: '/u/w', version: 2 } }, { max_memory: null, cpu_limit: null }), null)
  })
})

describe('accountCgroup', () => {
  const read = (/** @type {number} */ cpu) => ({ memory: 0, resident: 0, anon: 0, cpu_seconds: cpu, throttled_periods: 0, throttled_seconds: 0, oom_kills: 0, processes: 1 })
  test('the first reading has no interval: 0 %', () => {
    assert.deepEqual(accountCgroup(null, 5, read(2), 1000).figures, { cpu: 0, cpuSeconds: 2 })
  })
  test('half a second of CPU in one second: 50 %', () => {
    const first = accountCgroup(null, 5, read(2), 1000)
    assert.deepEqual(accountCgroup(first.track, 5, read(2.5), 2000).figures, { cpu: 50, cpuSeconds: 2.5 })
  })
  test('a new process of the worker starts a new count', () => {
    const first = accountCgroup(null, 5, read(2), 1000)
    assert.equal(accountCgroup(first.track, 6, read(0.1), 2000).figures.cpu, 0)
  })
})
