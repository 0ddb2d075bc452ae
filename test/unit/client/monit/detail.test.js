// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { detailLines, wrapLines } from '../../../../client/monit/detail.js'

test('the detail page says what describe knows: config, runtime, limits, sockets, logs, workers with their last exit, probes', () => {
  const described = {
    name: 'api',
    config: { name: 'api', script: '/srv/api/server.js', cwd: '/srv/api', instances: 2, exec_mode: 'cluster', max_memory_restart: 200 * 1024 * 1024, kill_timeout: 1600, listen: ['127.0.0.1:3000'], env: { SECRET: 'x' }, watch: false },
    logs: ['/home/u/.sup/logs/api-out.log', '/home/u/.sup/logs/api-err.log'],
    workers: [
      { id: 0, instance: 0, status: 'online', pid: 812, uptime: 60_000, restarts: 2, last_exit: { code: 3, signal: null, at: 990_000 }, runtime: { kind: 'node', path: '/usr/bin/node', version: 'v22.11.0', source: 'default' } },
      { id: 1, instance: 1, status: 'waiting', pid: null, uptime: 0, restarts: 5, last_exit: { code: null, signal: 'SIGSEGV', at: 995_000, reason: 'port 3000 is in use' }, runtime: null }
    ],
    events: []
  }
  const text = detailLines(described, 1_000_000).join('\n')
  for (const line of [/^script +\/srv\/api\/server\.js$/m, /^cwd +\/srv\/api$/m, /^instances +2$/m, /runtime node v22\.11\.0 \/usr\/bin\/node/, /max_memory_restart +200mb/, /kill_timeout +1600 ms/,
    /listen sockets +127\.0\.0\.1:3000/, /api-err\.log/, /#0 \[0\] online pid 812 .* last exit code 3 10s ago/, /#1 \[1\] waiting pid - .* last exit signal SIGSEGV 5s ago \(port 3000 is in use\)/]) assert.match(text, line)
  assert.doesNotMatch(text, /SECRET/, 'env values stay in sup env / describe --reveal')
})

test('the detail page escapes what an app chose (a script name with escapes)', () => {
  const text = detailLines({ name: 'x', config: { script: 'a\u001b[2Jb' }, logs: [], workers: [], events: [] }).join('\n')
  assert.ok(!text.includes('\u001b'), 'no escape character reaches the terminal')
})

test('a line longer than the page goes on under itself, indented, nothing cut', () => {
  assert.deepEqual(wrapLines(['short', 'script /a/very/long/path/to/app.js'], 16), ['short', 'script /a/very/l', '    ong/path/to/', '    app.js'])
})

test('the detail page shows the app\'s containment, its kernel limits and what its cgroups count (issue 24)', () => {
  const described = {
    name: 'api',
    config: { name: 'api', script: '/srv/api/server.js', max_memory: 64 * 1024 * 1024, cpu_limit: 1.5, max_pids: 100 },
    containment: { kind: 'cgroup-v2', reason: null, controllers: { memory: 1, cpu: 1, pids: 1 } },
    logs: [],
    workers: [{ id: 0, instance: 0, status: 'online', pid: 812, uptime: 1000, restarts: 0, limits: { max_memory: 64 * 1024 * 1024, memory_high: null, cpu_limit: 1.5, max_pids: 100 }, cgroup: { memory: 40 * 1024 * 1024, resident: 30 * 1024 * 1024, cpu_seconds: 2.5, throttled_seconds: 0.3, throttled_periods: 7, oom_kills: 1, processes: 3 } }],
    events: []
  }
  const text = detailLines(described, 1_000_000).join('\n')
  for (const line of [/max_memory +64\.0mb/, /cpu_limit +1\.5 cores/, /max_pids +100/, /^containment cgroup v2 \(a cgroup per worker, ended whole at stop; memory, cpu, pids from cgroup v1\)$/m,
    /cgroup \(limits per worker: max_memory 64\.0mb, memory_high none, cpu_limit 1\.5 cores, max_pids 100\)/, /^\s*0\s+40\.0mb\s+30\.0mb\s+2\.5s\s+0\.3s \(7 periods\)\s+1\s+3\s*$/m]) assert.match(text, line)
})
