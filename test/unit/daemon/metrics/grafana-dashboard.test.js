// @ts-check
// docs/grafana/sup-fleet.json queries only what the exporter writes: a renamed metric fails
// here, not on a user's dashboard. (test/integration/prometheus-server.test.js runs every
// query through a real Prometheus.)
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { FAMILY_NAMES } from '../../../../daemon/metrics/prometheus.js'
import { DASHBOARD, dashboardQueries } from '../../../helpers/grafana.js'

/** Series a summary writes besides its own name. */
const SUFFIXES = /_(sum|count)$/

test('the Grafana dashboard is valid JSON, and every query names metrics the exporter writes', () => {
  const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8'))
  const queries = dashboardQueries(dashboard)
  assert.ok(queries.length >= 14, `${queries.length} queries`)
  const known = new Set([...FAMILY_NAMES, 'up'])
  for (const query of queries) {
    // Metric names: words followed by { or ( or [ that are not functions or label names.
    const names = [...query.matchAll(/\b((?:sup|process)_[a-z_]+|up)\b(?=\s*[{[),]|$)/g)].map((m) => m[1])
    assert.ok(names.length > 0, `no metric in ${query}`)
    for (const name of names) {
      assert.ok(known.has(name) || (SUFFIXES.test(name) && known.has(name.replace(SUFFIXES, ''))), `${name} (in ${query}) is not a metric sup exports`)
    }
  }
  for (const panel of dashboard.panels) assert.equal(panel.datasource.uid, '$' + '{datasource}', `panel ${panel.title} uses the dashboard's datasource variable`)
  const ids = dashboard.panels.map((/** @type {any} */ p) => p.id)
  assert.equal(new Set(ids).size, ids.length, 'panel ids are unique')
})
