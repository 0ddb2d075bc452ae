// @ts-check
// Which worker takes a new connection under least-connections: the one holding the fewest
// open connections; among equals, the next one after the last pick (so a burst on idle
// workers spreads round-robin instead of piling onto the first). Pure.

/**
 * @template {{ open: number }} M
 * @param {readonly M[]} members the candidates, in a stable order (when they joined)
 * @param {number} turn a counter the caller advances at every pick: where ties start
 * @param {(member: M) => boolean} [allowed] false for members not to offer it to (they declined it)
 * @returns {M | null} null when no member is allowed
 */
export function leastConnected (members, turn, allowed = () => true) {
  const n = members.length
  /** @type {M | null} */
  let best = null
  for (let i = 0; i < n; i++) {
    const member = members[(turn + i) % n]
    if (!allowed(member)) continue
    if (best === null || member.open < best.open) best = member
  }
  return best
}
