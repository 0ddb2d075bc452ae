// @ts-check
// The Grafana dashboard in docs/grafana/ and its PromQL, for the tests that check its queries.

export const DASHBOARD = new URL('../../docs/grafana/sup-fleet.json', import.meta.url)

/**
 * Every PromQL expression of the dashboard: panel targets and template variables.
 * @param {any} dashboard
 * @returns {string[]}
 */
export function dashboardQueries (dashboard) {
  const panels = dashboard.panels.flatMap((/** @type {any} */ p) => p.targets.map((/** @type {any} */ t) => t.expr))
  const variables = dashboard.templating.list.filter((/** @type {any} */ v) => v.type === 'query').map((/** @type {any} */ v) => v.query.query)
  return [...panels, ...variables]
}
