// @ts-check
// A real Prometheus (Debian's) scrapes a daemon's /metrics, and its HTTP API answers queries
// on sup's series: what a fleet's Prometheus and the Grafana dashboard in docs/grafana/ see.
import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { sendSignal } from '../../daemon/worker/process-tree.js'
import { DASHBOARD, dashboardQueries } from '../helpers/grafana.js'
import { APPS, freePort, httpGet, useSupHome } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

const HAS_PROMETHEUS = spawnSync('prometheus', ['--version']).status === 0

test('a real Prometheus scrapes /metrics: up is 1 and sup\'s series answer queries (needs prometheus)', { skip: !HAS_PROMETHEUS && 'prometheus is not installed (Debian: apt-get install prometheus; test/system-deps.js does it as root)' }, async (t) => {
  const home = useSupHome(t)
  const metricsPort = await freePort()
  const appPort = await freePort()
  assert.equal((await home.sup(['metrics', '--port', String(metricsPort)])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '-n', 'web'], { env: { PORT: String(appPort) } })).code, 0)

  const dir = mkdtempSync(join(tmpdir(), 'sup-prometheus-'))
  const config = join(dir, 'prometheus.yml')
  // honor_labels: sup's own `instance` label (the worker) stays as it is (docs/monitoring.md).
  writeFileSync(config, [
    'global:',
    '  scrape_interval: 1s',
    '  evaluation_interval: 1s',
    'scrape_configs:',
    '  - job_name: sup',
    '    honor_labels: true',
    '    static_configs:',
    `      - targets: ['127.0.0.1:${metricsPort}']`,
    // The host label the Grafana dashboard groups by (docs/deploy.md).
    '    relabel_configs:',
    '      - source_labels: [__address__]',
    '        regex: "([^:]+):.*"',
    '        target_label: host',
    ''
  ].join('\n'))
  const port = await freePort()
  const server = spawn('prometheus', [
    `--config.file=${config}`, `--storage.tsdb.path=${join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`
  ], { stdio: ['ignore', 'ignore', 'pipe'] })
  let log = ''
  server.stderr?.on('data', (chunk) => { log = (log + chunk).slice(-4000) })
  t.after(() => {
    if (server.pid && server.exitCode === null) sendSignal(server.pid, 'SIGKILL')
    rmSync(dir, { recursive: true, force: true })
  })

  /** @param {string} query @returns {Promise<Array<{ metric: Record<string, string>, value: [number, string] }>>} */
  const ask = async (query) => {
    const res = await httpGet(port, `/api/v1/query?query=${encodeURIComponent(query)}`).catch(() => null)
    if (!res || res.status !== 200) return []
    return JSON.parse(res.body).data.result
  }
  /** @param {string} query @param {(r: Awaited<ReturnType<typeof ask>>) => boolean} ok */
  const until = (query, ok) => {
    let last = /** @type {Awaited<ReturnType<typeof ask>>} */ ([])
    return waitFor(async () => ok(last = await ask(query)) && last, { what: `Prometheus to answer ${query}`, timeout: 60_000, interval: 500, show: () => `${JSON.stringify(last)}\n${log}` })
  }

  const up = await until('up{job="sup"}', (r) => r.length === 1 && r[0].value[1] === '1')
  assert.equal(up[0].metric.job, 'sup')
  const serving = await until('sum(sup_app_state{app="web",state="online"})', (r) => r[0]?.value[1] === '2')
  assert.equal(serving[0].value[1], '2')
  const memory = await until('process_resident_memory_bytes{app="web"}', (r) => r.length === 2)
  assert.deepEqual(memory.map((s) => s.metric.instance).sort(), ['0', '1'])
  assert.ok(memory.every((s) => Number(s.value[1]) > 1024 * 1024))
  // The summary's quantiles are ingested as sup writes them (the agent reports every 5 s).
  const delay = await until('sup_event_loop_delay_seconds{app="web",quantile="0.99"}', (r) => r.length === 2)
  assert.ok(delay.every((s) => Number(s.value[1]) >= 0))
  // A reload shows in the decisions counted and in the reload durations.
  assert.equal((await home.sup(['reload', 'web'])).code, 0)
  const reloads = await until('sup_reload_duration_seconds_count{app="web",outcome="reloaded"}', (r) => r[0]?.value[1] === '1')
  assert.equal(reloads[0].metric.host, '127.0.0.1')
  await until('sup_events_total{app="web",kind="reload"}', (r) => Number(r[0]?.value[1]) >= 2)

  // Every query of the Grafana dashboard is PromQL this Prometheus takes, and answers.
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'))
  for (const query of dashboardQueries(dashboard).filter((q) => !q.startsWith('label_values('))) {
    const expr = query.replaceAll('$__rate_interval', '1m').replace(/\$(job|host|app)\b/g, '.*')
    const res = await httpGet(port, `/api/v1/query?query=${encodeURIComponent(expr)}`)
    assert.equal(res.status, 200, `${expr}: ${res.body}`)
    assert.equal(JSON.parse(res.body).status, 'success')
  }
  const [online] = await ask('sum(sup_app_state{job=~".*",host=~".*",app=~".*",state="online"})')
  assert.equal(online?.value[1], '2', 'the dashboard\'s "Workers online" query counts the two workers')
})
