// @ts-check
// "Did you mean …?" for a mistyped verb. Commander's own guess is by edit distance over every
// verb, so `sup desc` got `del` (delete) where `describe` was meant (issue 20). A guess is
// only ever a verb that changes nothing: a word that starts a verb (`desc`, `stat`) names it
// first, a near miss comes second, and a verb that stops, deletes or rewrites something is
// never offered, whatever was typed.

/**
 * The verbs (and aliases) a guess may name: they read, or they start what is not running.
 * Every other verb stops, deletes, restarts, signals or overwrites something.
 */
export const SUGGESTABLE = Object.freeze([
  'ls', 'list', 'status', 'ps', 'jlist', 'prettylist', 'describe', 'show', 'info', 'logs',
  'monit', 'metrics', 'pid', 'id', 'env', 'ping', 'get', 'start', 'resurrect'
])

/**
 * The verb meant by `word`, or null when no verb that changes nothing is close enough.
 * @param {string} word what was typed where a verb goes
 * @param {readonly string[]} [verbs]
 * @returns {string | null}
 */
export function suggestVerb (word, verbs = SUGGESTABLE) {
  const typed = word.toLowerCase()
  if (typed.length === 0) return null
  // A prefix of exactly one verb names it (`desc`, `stat`); `l` or `s` alone name none.
  const prefixed = verbs.filter((verb) => verb.startsWith(typed))
  if (typed.length >= 2 && prefixed.length === 1) return prefixed[0]
  let best = null
  let bestDistance = Infinity
  for (const verb of verbs) {
    const distance = editDistance(typed, verb)
    // As commander: at most 40 % of the word may be wrong, and never more than 2 edits.
    if (distance > 2 || distance / Math.max(typed.length, verb.length) > 0.4) continue
    if (distance < bestDistance) [best, bestDistance] = [verb, distance]
  }
  return best
}

/**
 * Damerau-Levenshtein (optimal string alignment): a swap of two neighbours is one edit.
 * @param {string} a
 * @param {string} b
 */
export function editDistance (a, b) {
  /** @type {number[][]} */
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0][j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1)
    }
  }
  return d[a.length][b.length]
}
