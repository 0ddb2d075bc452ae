// Print a scenario's table and keep its figures as JSON.

/**
 * @param {string[]} header
 * @param {(string | number)[][]} rows
 */
export function renderTable (header, rows) {
  const cells = [header, ...rows.map((r) => r.map(String))]
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const line = (/** @type {string[]} */ r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ')
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n')
}

/**
 * A target line: what, the figure, the target and whether it is met.
 * @param {string} what
 * @param {number} value
 * @param {'<=' | '>='} op
 * @param {number} limit
 * @param {string} shown how the figure reads, e.g. "0.98×"
 */
export function target (what, value, op, limit, shown) {
  const met = Number.isNaN(value) ? null : op === '<=' ? value <= limit : value >= limit
  return { what, value, op, limit, shown, met }
}
