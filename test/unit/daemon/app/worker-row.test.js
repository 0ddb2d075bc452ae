// @ts-check
// A worker's row in `sup ls`, as a table: what the worker is, its last sample, its app's restore
// and log files in; one row out.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { workerRow } from '../../../../daemon/app/worker-row.js'
import { initialState } from '../../../../daemon/worker/lifecycle.js'
import { appConfig } from '../../../helpers/fake-effects.js'

const NOW = 1_000_000
const LOGS = { log_error: null, log_dropped_lines: 0, log_dropped_bytes: 0 }
const CGROUP = { memory: 4096, resident: 2048, anon: 1024, cpu_seconds: 1.5, throttled_periods: 3, throttled_seconds: 0.2, oom_kills: 0, processes: 2 }
const NODE = { kind: /** @type {const} */ ('node'), path: '/usr/bin/node', version: 'v22.1.0', source: 'daemon', own: true }

/**
 * @param {Partial<import('../../../../daemon/worker/lifecycle.js').WorkerState>} state
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} [config]
 * @param {typeof NODE | null} [runtime]
 */
const worker = (state, config = {}, runtime = null) => ({ id: 4, instance: 1, revision: { config: appConfig(config) }, state: { ...initialState(), ...state }, runtime })

/** @type {Array<{ name: string, worker: ReturnType<typeof worker>, context?: Partial<Parameters<typeof workerRow>[1]>, expect: Partial<import('../../../../ipc/methods.js').WorkerRow> }>} */
const cases = [
  { name: 'a stopped worker: no uptime, no figures', worker: worker({ status: 'stopped', restarts: 2 }), expect: { status: 'stopped', pid: null, uptime: 0, cpu: 0, memory: 0, restarts: 2 } },
  { name: 'an online worker: uptime from its start, the figures of its sample', worker: worker({ status: 'online', pid: 77, startedAt: NOW - 5000 }), expect: { status: 'online', pid: 77, uptime: 5000, cpu: 12, memory: 2048 } },
  { name: 'a waiting worker shows no figures (its process is gone)', worker: worker({ status: 'waiting', startedAt: NOW - 5000, retryAt: NOW + 100 }), expect: { uptime: 0, cpu: 0, memory: 0, retry_at: NOW + 100 } },
  { name: 'name, namespace, mode and instance from the revision and the worker', worker: worker({}, { name: 'api', namespace: 'shop', exec_mode: 'cluster' }), expect: { id: 4, name: 'api', namespace: 'shop', mode: 'cluster', instance: 1 } },
  { name: 'no namespace reads "default"', worker: worker({}, { namespace: undefined }), expect: { namespace: 'default' } },
  { name: 'ready is null without a readiness probe', worker: worker({ probeReady: true }), expect: { ready: null } },
  { name: 'ready follows the probe when there is one', worker: worker({ probeReady: true }, { readiness: { type: 'http', host: '127.0.0.1', port: null, path: '/', status: null, command: [], initial_delay: 0, period: 1000, timeout: 1000, failure_threshold: 3, success_threshold: 1 } }), expect: { ready: true } },
  { name: 'restored says how the app came back', worker: worker({}), context: { restored: { from: 'crashed' } }, expect: { restored: 'crashed' } },
  { name: 'the node it runs on, without the daemon\'s own flag', worker: worker({}, {}, NODE), expect: { runtime: { kind: 'node', path: '/usr/bin/node', version: 'v22.1.0', source: 'daemon' } } },
  { name: 'its limits, from its config', worker: worker({}, { max_memory: 1024, cpu_limit: 0.5 }), expect: { limits: { max_memory: 1024, memory_high: null, cpu_limit: 0.5, max_pids: null } } },
  { name: 'an online worker in a cgroup: the kernel\'s figures', worker: worker({ status: 'online', pid: 77, startedAt: NOW }), context: { usage: { cpu: 1, memory: 2, cgroup: CGROUP } }, expect: { cgroup: CGROUP } },
  { name: 'a stopped one: none', worker: worker({ status: 'stopped' }), context: { usage: { cpu: 0, memory: 0, cgroup: CGROUP } }, expect: { cgroup: null } },
  { name: 'its log files\' trouble', worker: worker({}), context: { logStatus: { log_error: null, log_dropped_lines: 3, log_dropped_bytes: 90 } }, expect: { log_dropped_lines: 3, log_dropped_bytes: 90 } }
]

for (const c of cases) {
  test(c.name, () => {
    const row = workerRow(c.worker, { usage: { cpu: 12, memory: 2048 }, restored: undefined, logStatus: LOGS, now: NOW, ...c.context })
    assert.deepEqual(Object.fromEntries(Object.keys(c.expect).map((key) => [key, row[/** @type {keyof typeof row} */ (key)]])), c.expect)
  })
}

test('a row has every field of the contract, and only those', () => {
  const row = workerRow(worker({}), { usage: { cpu: 0, memory: 0 }, restored: undefined, logStatus: LOGS, now: NOW })
  assert.deepEqual(Object.keys(row).sort(), ['cgroup', 'cpu', 'id', 'instance', 'last_exit', 'last_restart', 'limits', 'liveness_restarts', 'log_dropped_bytes', 'log_dropped_lines', 'log_error', 'memory', 'mode', 'name', 'namespace', 'pid', 'ready', 'restarts', 'restored', 'retry_at', 'runtime', 'status', 'unstable_restarts', 'uptime'])
})
