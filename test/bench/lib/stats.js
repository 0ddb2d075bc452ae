// Medians, ratios and the interleaving every comparison goes through.

/** @param {number[]} values */
export function median (values) {
  const sorted = values.filter((v) => Number.isFinite(v)).sort((a, b) => a - b)
  if (sorted.length === 0) return NaN
  const mid = sorted.length >> 1
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

/** @param {number} a @param {number} b */
export const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b !== 0 ? a / b : NaN)

/**
 * Run `measure` for every side, side after side, round after round (A B A B …), so slow
 * drift of a shared machine hits all sides alike. Stops adding rounds once `ctx` says the
 * time budget is spent (after at least one round).
 * @template T
 * @param {import('../run.js').BenchContext} ctx
 * @param {string[]} sides
 * @param {number} rounds
 * @param {(side: string, round: number) => Promise<T>} measure
 * @returns {Promise<Record<string, T[]>>}
 */
export async function interleave (ctx, sides, rounds, measure) {
  /** @type {Record<string, T[]>} */
  const results = Object.fromEntries(sides.map((s) => [s, []]))
  for (let round = 0; round < rounds; round++) {
    if (round > 0 && ctx.outOfTime()) {
      ctx.note(`stopped after ${round} round(s): time budget spent`)
      break
    }
    for (const side of sides) results[side].push(await measure(side, round))
  }
  return results
}

/** @param {number} value @param {number} [digits] */
export function fmt (value, digits = 0) {
  if (!Number.isFinite(value)) return '—'
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
}

/** @param {number} bytes */
export const mib = (bytes) => fmt(bytes / (1024 * 1024), 1)

/** @param {number} r */
export const times = (r) => (Number.isFinite(r) ? `${r.toFixed(2)}×` : '—')
