// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { escapeHelp, escapeLabelValue, formatValue, renderPrometheus } from '../../../../daemon/metrics/prometheus.js'
import { EventTallies } from '../../../../daemon/metrics/event-tallies.js'
import { emptyUsage } from '../../../../daemon/metrics/sampler.js'
import { parsePrometheus } from '../../../helpers/prometheus.js'

/** @returns {import('../../../../daemon/metrics/prometheus.js').ExportedWorker} */
const worker = (/** @type {any} */ extra = {}) => ({
  app: 'api',
  instance: 0,
  id: 0,
  status: 'online',
  running: true,
  restarts: 2,
  startedAt: 1_700_000_000_500,
  usage: { ...emptyUsage(), time: 1, cpu: 5, memory: 1000, cpu_seconds: 1.25, loop_delay: { p50: 0.5, p99: 12, max: 20 }, heap: { used: 10, total: 20 } },
  ...extra
})

describe('renderPrometheus', () => {
  test('a running node worker: every family, base units, parseable', () => {
    const families = parsePrometheus(renderPrometheus([worker()]))
    const value = (/** @type {string} */ name, /** @type {Record<string, string>} */ extra = {}) =>
      families.get(name)?.samples.find((s) => Object.entries({ app: 'api', instance: '0', ...extra }).every(([k, v]) => s.labels[k] === v))?.value
    assert.equal(families.get('process_cpu_seconds_total')?.type, 'counter')
    assert.equal(value('process_cpu_seconds_total'), 1.25)
    assert.equal(value('process_resident_memory_bytes'), 1000)
    assert.equal(value('process_start_time_seconds'), 1_700_000_000.5)
    assert.equal(families.get('sup_restarts_total')?.type, 'counter')
    assert.equal(value('sup_restarts_total'), 2)
    assert.equal(families.get('sup_event_loop_delay_seconds')?.type, 'summary', 'a quantile label belongs to a summary (promtool check metrics)')
    assert.equal(value('sup_event_loop_delay_seconds', { quantile: '0.5' }), 0.0005)
    assert.equal(value('sup_event_loop_delay_seconds', { quantile: '0.99' }), 0.012)
    assert.equal(value('sup_heap_used_bytes'), 10)
    const states = families.get('sup_app_state')?.samples ?? []
    assert.deepEqual(states.map((s) => [s.labels.state, s.value]), [['starting', 0], ['online', 1], ['stopping', 0], ['stopped', 0], ['waiting', 0], ['errored', 0]])
  })

  test('a stopped worker has state and restarts, and no process figures', () => {
    const families = parsePrometheus(renderPrometheus([worker({ status: 'stopped', running: false, startedAt: null })]))
    assert.deepEqual(families.get('process_cpu_seconds_total')?.samples, [])
    assert.deepEqual(families.get('process_start_time_seconds')?.samples, [])
    assert.equal(families.get('sup_restarts_total')?.samples.length, 1)
    assert.equal(families.get('sup_app_state')?.samples.find((s) => s.value === 1)?.labels.state, 'stopped')
  })

  test('no workers: only HELP and TYPE lines, still valid', () => {
    const text = renderPrometheus([])
    assert.ok(text.split('\n').filter(Boolean).every((l) => l.startsWith('# ')))
    assert.equal(parsePrometheus(text).size, 16)
  })

  test('a worker in a cgroup: the kernel\'s figures and its limits; one without: none of them', () => {
    const cgroup = { memory: 4096, resident: 2048, anon: 1024, cpu_seconds: 1.25, throttled_periods: 7, throttled_seconds: 0.5, oom_kills: 1, processes: 2 }
    const families = parsePrometheus(renderPrometheus([worker({ usage: { ...emptyUsage(), time: 1, cgroup }, limits: { max_memory: 65536, cpu_limit: 1.5 } })]))
    const value = (/** @type {string} */ name) => families.get(name)?.samples[0]?.value
    assert.deepEqual([value('sup_cgroup_memory_bytes'), value('sup_cgroup_cpu_throttled_seconds_total'), value('sup_cgroup_oom_kills_total'), value('sup_memory_limit_bytes'), value('sup_cpu_limit_cores')], [4096, 0.5, 1, 65536, 1.5])
    const plain = parsePrometheus(renderPrometheus([worker()]))
    for (const name of ['sup_cgroup_memory_bytes', 'sup_memory_limit_bytes', 'sup_cpu_limit_cores']) assert.equal(plain.get(name)?.samples.length, 0, name)
  })

  test('max_memory_restart as sup_max_memory_restart_bytes, only for apps that set it', () => {
    const families = parsePrometheus(renderPrometheus([worker({ maxMemoryRestart: 200 * 1024 * 1024 }), worker({ app: 'free', maxMemoryRestart: null })]))
    assert.deepEqual(families.get('sup_max_memory_restart_bytes')?.samples, [{ labels: { app: 'api', instance: '0' }, value: 200 * 1024 * 1024 }])
  })

  test('event tallies: decisions by app and kind, reload durations as a summary of sum and count', () => {
    const tallies = new EventTallies()
    const event = (/** @type {any} */ e) => tallies.count({ seq: 1, at: 0, level: 'info', id: null, instance: null, message: '', data: {}, ...e })
    event({ app: 'api', kind: 'restarting' })
    event({ app: 'api', kind: 'restarting' })
    event({ app: 'api', kind: 'memory-limit' })
    event({ app: 'api', kind: 'reload', data: { phase: 'begin' } })
    event({ app: 'api', kind: 'reload', data: { phase: 'end', outcome: 'reloaded', ms: 1500 } })
    event({ app: 'api', kind: 'reload', data: { phase: 'end', outcome: 'reloaded', ms: 500 } })
    event({ app: 'api', kind: 'reload', data: { phase: 'end', outcome: 'aborted', ms: 3000 } })
    event({ kind: 'daemon' })
    const families = parsePrometheus(renderPrometheus([], tallies.families()))
    const events = families.get('sup_events_total')
    assert.equal(events?.type, 'counter')
    assert.deepEqual(events?.samples.map((s) => [s.labels.kind, s.value]), [['restarting', 2], ['memory-limit', 1], ['reload', 4]])
    assert.equal(families.get('sup_reload_duration_seconds')?.type, 'summary')
    const text = renderPrometheus([], tallies.families())
    assert.match(text, /^sup_reload_duration_seconds_sum\{app="api",outcome="reloaded"\} 2$/m)
    assert.match(text, /^sup_reload_duration_seconds_count\{app="api",outcome="reloaded"\} 2$/m)
    assert.match(text, /^sup_reload_duration_seconds_count\{app="api",outcome="aborted"\} 1$/m)
  })

  test('probes: sup_ready for workers of apps with a readiness probe, sup_liveness_restarts_total for every worker', () => {
    const families = parsePrometheus(renderPrometheus([
      worker({ instance: 0, ready: true, livenessRestarts: 3 }),
      worker({ instance: 1, ready: false }),
      worker({ instance: 2, ready: null }),
      worker({ instance: 3, ready: false, running: false, status: 'stopped' })
    ]))
    assert.equal(families.get('sup_ready')?.type, 'gauge')
    assert.deepEqual(families.get('sup_ready')?.samples.map((s) => [s.labels.instance, s.value]), [['0', 1], ['1', 0]])
    assert.equal(families.get('sup_liveness_restarts_total')?.type, 'counter')
    assert.deepEqual(families.get('sup_liveness_restarts_total')?.samples.map((s) => [s.labels.instance, s.value]), [['0', 3], ['1', 0], ['2', 0], ['3', 0]])
  })

  test('label values are escaped, and read back intact', () => {
    const name = 'a\\b"c\nd'
    const families = parsePrometheus(renderPrometheus([worker({ app: name })]))
    assert.equal(families.get('sup_restarts_total')?.samples[0].labels.app, name)
    assert.match(renderPrometheus([worker({ app: name })]), /app="a\\\\b\\"c\\nd"/)
  })
})

test('escapes and values', () => {
  assert.equal(escapeLabelValue('x\\"\n'), 'x\\\\\\"\\n')
  assert.equal(escapeHelp('a\\b\nc"'), 'a\\\\b\\nc"')
  assert.deepEqual([1.5, NaN, Infinity, -Infinity, 0].map(formatValue), ['1.5', 'NaN', '+Inf', '-Inf', '0'])
})
