// @ts-check
// The cgroup layout read from /proc/self/mountinfo and /proc/self/cgroup, and which hierarchy
// serves the kill and each controller: v2 first, v1 only for what v2 lacks.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { detectLayout, parseMountinfo } from '../../../../daemon/cgroups/layout.js'
import { appDirName, planHierarchies, servesWorker, subtreeName } from '../../../../daemon/cgroups/cgroups.js'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'

const HYBRID_MOUNTS = [
  '31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu',
  '33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer',
  '39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd',
  '41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw'
].join('\n')
const HYBRID_SELF = ['9:name=systemd:/', '8:pids:/', '6:freezer:/', '4:memory:/process_api/abc', '2:cpuacct:/', '1:cpu:/', '0::/'].join('\n')

const V2_MOUNTS = '30 23 0:27 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate'
const V2_SELF = '0::/system.slice/sup.service'

const V1_MOUNTS = [
  '32 31 0:29 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct',
  '35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory',
  '37 31 0:34 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer'
].join('\n')
const V1_SELF = ['4:memory:/user', '3:freezer:/', '2:cpu,cpuacct:/'].join('\n')

describe('detectLayout', () => {
  test('hybrid: v1 controllers and a cgroup2 unified mount, the daemon\'s own cgroup in each', () => {
    const layout = detectLayout(HYBRID_MOUNTS, HYBRID_SELF, () => ['hugetlb'])
    assert.equal(layout.kind, 'hybrid')
    assert.deepEqual(layout.v2, { version: 2, controllers: ['hugetlb'], mount: '/sys/fs/cgroup/unified', own: '/sys/fs/cgroup/unified' })
    assert.deepEqual(layout.v1.map((h) => [h.controllers.join(','), h.own]), [
      ['cpu', '/sys/fs/cgroup/cpu'], ['cpuacct', '/sys/fs/cgroup/cpuacct'], ['memory', '/sys/fs/cgroup/memory/process_api/abc'],
      ['freezer', '/sys/fs/cgroup/freezer'], ['pids', '/sys/fs/cgroup/pids']
    ])
  })
  test('pure v2: one cgroup2 mount at /sys/fs/cgroup', () => {
    const layout = detectLayout(V2_MOUNTS, V2_SELF, () => ['cpu', 'memory', 'pids'])
    assert.equal(layout.kind, 'v2')
    assert.equal(layout.v2?.own, '/sys/fs/cgroup/system.slice/sup.service')
    assert.deepEqual(layout.v1, [])
  })
  test('v1 only, with co-mounted cpu,cpuacct', () => {
    const layout = detectLayout(V1_MOUNTS, V1_SELF)
    assert.equal(layout.kind, 'v1')
    assert.equal(layout.v2, null)
    assert.deepEqual(layout.v1.map((h) => h.controllers), [['cpu', 'cpuacct'], ['memory'], ['freezer']])
  })
  test('none: no cgroup mount', () => {
    assert.deepEqual(detectLayout('22 1 0:5 / /proc rw - proc proc rw', ''), { kind: 'none', v2: null, v1: [] })
  })
  test('a mount whose root is a sub-cgroup (a container) maps the path inside it', () => {
    const layout = detectLayout('30 23 0:27 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw', '0::/docker/abc/app')
    assert.equal(layout.v2?.own, '/sys/fs/cgroup/app')
  })
  test('escaped mount points are read back', () => {
    assert.equal(parseMountinfo('30 23 0:27 / /mnt/a\\040b rw - cgroup2 cgroup2 rw')[0].mount, '/mnt/a b')
  })
})

describe('planHierarchies', () => {
  /** @param {import('../../../../daemon/cgroups/layout.js').Layout} layout @param {{ v1Only?: boolean }} [prefer] */
  const mounts = (layout, prefer) => {
    const plan = planHierarchies(layout, prefer)
    return { kill: plan.kill?.mount ?? null, ...Object.fromEntries(Object.entries(plan.controllers).map(([k, h]) => [k, h.mount])) }
  }
  const cases = [
    {
      name: 'hybrid without v2 controllers: kill by v2, limits from v1, CPU time from v2\'s cpu.stat',
      layout: detectLayout(HYBRID_MOUNTS, HYBRID_SELF, () => []),
      expect: { kill: '/sys/fs/cgroup/unified', memory: '/sys/fs/cgroup/memory', cpu: '/sys/fs/cgroup/cpu', pids: '/sys/fs/cgroup/pids', cpuacct: '/sys/fs/cgroup/unified' }
    },
    {
      name: 'hybrid, v2 offering memory: memory from v2, the rest from v1',
      layout: detectLayout(HYBRID_MOUNTS, HYBRID_SELF, () => ['memory']),
      expect: { kill: '/sys/fs/cgroup/unified', memory: '/sys/fs/cgroup/unified', cpu: '/sys/fs/cgroup/cpu', pids: '/sys/fs/cgroup/pids', cpuacct: '/sys/fs/cgroup/unified' }
    },
    {
      name: 'SUP_CGROUPS=v1 on hybrid: the freezer ends a group',
      layout: detectLayout(HYBRID_MOUNTS, HYBRID_SELF, () => []),
      prefer: { v1Only: true },
      expect: { kill: '/sys/fs/cgroup/freezer', memory: '/sys/fs/cgroup/memory', cpu: '/sys/fs/cgroup/cpu', pids: '/sys/fs/cgroup/pids', cpuacct: '/sys/fs/cgroup/cpuacct' }
    },
    {
      name: 'pure v2: everything from v2',
      layout: detectLayout(V2_MOUNTS, V2_SELF, () => ['cpu', 'memory', 'pids']),
      expect: { kill: '/sys/fs/cgroup', memory: '/sys/fs/cgroup', cpu: '/sys/fs/cgroup', pids: '/sys/fs/cgroup', cpuacct: '/sys/fs/cgroup' }
    },
    {
      name: 'none: nothing',
      layout: detectLayout('', ''),
      expect: { kill: null }
    }
  ]
  for (const c of cases) test(c.name, () => assert.deepEqual(mounts(c.layout, c.prefer), c.expect))
})

test('a daemon\'s subtree is named from its SUP_HOME: two homes never share one', () => {
  assert.match(subtreeName('/root/.sup'), /^sup-[0-9a-f]{12}$/)
  assert.equal(subtreeName('/root/.sup'), subtreeName('/root/.sup'))
  assert.notEqual(subtreeName('/root/.sup'), subtreeName('/tmp/other'))
  assert.equal(appDirName('cgroup.procs'), 'app-cgroup.procs', 'no app name meets a control file')
})

describe('servesWorker: the hierarchies a worker is moved into', () => {
  const plan = planHierarchies(detectLayout(HYBRID_MOUNTS, HYBRID_SELF, () => []))
  const hierarchies = [...new Set([plan.kill, ...Object.values(plan.controllers)])].filter((h) => h !== null && h !== undefined)
  /** @param {Record<string, unknown>} limits */
  const into = (limits) => hierarchies.filter((h) => servesWorker(plan, h, /** @type {any} */ ({ ...APP_DEFAULTS, name: 'a', ...limits }))).map((h) => h.mount)
  const cases = /** @type {const} */ ([
    ['no limit: the kill\'s (and CPU time\'s), and memory\'s for accounting', {}, ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/memory']],
    ['cpu_limit: cpu\'s too', { cpu_limit: 0.5 }, ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/cpu']],
    ['max_pids: pids\' too', { max_pids: 10 }, ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/memory', '/sys/fs/cgroup/pids']],
    ['max_memory: memory\'s, as without', { max_memory: 1 << 26 }, ['/sys/fs/cgroup/unified', '/sys/fs/cgroup/memory']]
  ])
  for (const [name, limits, expected] of cases) {
    test(name, () => assert.deepEqual(into(limits).sort(), [...expected].sort()))
  }
})
