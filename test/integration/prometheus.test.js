// @ts-check
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitForMetrics } from '../helpers/metrics.js'
import { parsePrometheus } from '../helpers/prometheus.js'
import { APPS, freePort, httpGet, useSupHome } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

test('sup metrics --port serves the Prometheus text format; --off closes it', async (t) => {
  const home = useSupHome(t)
  const appPort = await freePort()
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '-n', 'web'], { env: { PORT: String(appPort) } })).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])).code, 0)
  await home.sup(['stop', 'worker'])
  await waitForMetrics(home, (all) => all.filter((s) => s.name === 'web' && s.loop_delay).length === 2, { what: 'both web workers sampled with agent figures', apps: ['web'] })

  const off = await home.sup(['metrics'])
  assert.match(off.stdout, /metrics endpoint is off/)
  const port = await freePort()
  const on = await home.sup(['metrics', '--port', String(port)])
  assert.equal(on.code, 0, on.stderr)
  assert.equal(on.stdout.trim(), `serving Prometheus metrics at http://127.0.0.1:${port}/metrics`)

  const res = await httpGet(port, '/metrics')
  assert.equal(res.status, 200)
  const families = parsePrometheus(res.body)
  const web = (/** @type {string} */ name) => families.get(name)?.samples.filter((s) => s.labels.app === 'web') ?? []
  assert.deepEqual(web('process_resident_memory_bytes').map((s) => s.labels.instance).sort(), ['0', '1'])
  assert.ok(web('process_resident_memory_bytes').every((s) => s.value > 1024 * 1024))
  assert.ok(web('process_cpu_seconds_total').every((s) => s.value > 0))
  assert.ok(web('process_start_time_seconds').every((s) => Math.abs(s.value - Date.now() / 1000) < 600))
  assert.deepEqual(web('sup_event_loop_delay_seconds').map((s) => s.labels.quantile).sort(), ['0.5', '0.5', '0.99', '0.99'])
  const state = (/** @type {string} */ app) => families.get('sup_app_state')?.samples.filter((s) => s.labels.app === app && s.value === 1).map((s) => s.labels.state)
  assert.deepEqual(state('web'), ['online', 'online'])
  assert.deepEqual(state('worker'), ['stopped'], 'a stopped worker is exported with its state')
  assert.equal(families.get('process_resident_memory_bytes')?.samples.some((s) => s.labels.app === 'worker'), false)
  assert.equal(families.get('sup_restarts_total')?.type, 'counter')

  assert.equal((await httpGet(port, '/')).status, 404)
  const json = JSON.parse((await home.sup(['metrics', '--json'])).stdout)
  assert.deepEqual({ serving: json.serving, host: json.host, port: json.port }, { serving: true, host: '127.0.0.1', port })

  const busy = await home.sup(['metrics', '--port', String(appPort)])
  assert.equal(busy.code, 1)
  assert.match(busy.stderr, /port is in use/)
  assert.equal((await httpGet(port, '/metrics')).status, 200, 'a failed move keeps the endpoint that was open')

  assert.equal((await home.sup(['metrics', '--off'])).code, 0)
  await assert.rejects(httpGet(port, '/metrics'), /ECONNREFUSED/)
})

const PROMTOOL = spawnSync('promtool', ['--version']).status === 0

test('promtool check metrics: a live daemon\'s /metrics has no warnings (needs promtool)', { skip: !PROMTOOL && 'promtool is not installed (Debian: apt-get install prometheus; test/system-deps.js does it as root)' }, async (t) => {
  const home = useSupHome(t)
  const appPort = await freePort()
  const port = await freePort()
  assert.equal((await home.sup(['metrics', '--port', String(port)])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '-n', 'web'], { env: { PORT: String(appPort) } })).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'worker.py'), '--min-uptime', '200'])).code, 0)
  // Every family with samples: the agent's figures are there once both workers reported.
  await waitForMetrics(home, (all) => all.filter((s) => s.name === 'web' && s.loop_delay && s.heap).length === 2, { what: 'both web workers with agent figures', apps: ['web'] })
  const body = (await httpGet(port, '/metrics')).body
  assert.ok(parsePrometheus(body).get('sup_event_loop_delay_seconds')?.samples.length === 4, body)
  const lint = spawnSync('promtool', ['check', 'metrics'], { input: body, encoding: 'utf8' })
  assert.equal(lint.stdout + lint.stderr, '', `promtool's findings on:\n${body}`)
  assert.equal(lint.status, 0)
})

test('SUP_METRICS_PORT opens the endpoint when the daemon starts', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  assert.equal((await home.sup(['ping'], { env: { SUP_METRICS_PORT: String(port) } })).code, 0)
  const res = await httpGet(port, '/metrics')
  assert.equal(res.status, 200)
  assert.equal(parsePrometheus(res.body).size, 18)
})

test('probe figures: sup_ready follows the readiness probe, sup_liveness_restarts_total counts liveness restarts', async (t) => {
  const home = useSupHome(t)
  const appPort = await freePort()
  const metricsPort = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sup-prom-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'apps.json')
  writeFileSync(file, JSON.stringify({
    apps: [{
      name: 'web',
      script: join(APPS, 'probed-http.js'),
      kill_timeout: 1000,
      // /ready answers 503 for the first 3 s of each process: a window the scrapes cannot miss.
      env: { PORT: String(appPort), NOT_READY_MS: '3000' },
      readiness: { http: '/ready', period: 200 },
      liveness: { http: '/healthz', period: 500, timeout: 400, failure_threshold: 2 }
    }]
  }))
  assert.equal((await home.sup(['metrics', '--port', String(metricsPort)])).code, 0)
  assert.equal((await home.sup(['start', file])).code, 0)

  /**
   * Scrape until `predicate` holds for the web worker's figures (at most `timeout` ms).
   * @param {(f: { ready: number[], liveness: number[] }) => boolean} predicate
   * @param {string} what
   */
  const scrapeUntil = async (predicate, what, timeout = 15_000) => {
    let last = null
    return await waitFor(async () => {
      const families = parsePrometheus((await httpGet(metricsPort, '/metrics')).body)
      const of = (/** @type {string} */ name) => (families.get(name)?.samples ?? []).filter((s) => s.labels.app === 'web').map((s) => s.value)
      last = { ready: of('sup_ready'), liveness: of('sup_liveness_restarts_total') }
      return predicate(last) && last
    }, { what, timeout, interval: 100, show: () => JSON.stringify(last) })
  }
  await scrapeUntil((f) => f.ready[0] === 1 && f.liveness[0] === 0, 'the worker ready')

  assert.equal((await httpGet(appPort, '/hang')).status, 200)
  // The hung worker is restarted; its successor is not ready for its first 3 s.
  await scrapeUntil((f) => f.liveness[0] === 1 && f.ready[0] === 0, 'a liveness restart, the new process not ready yet')
  await scrapeUntil((f) => f.liveness[0] === 1 && f.ready[0] === 1, 'the new process ready')
})
