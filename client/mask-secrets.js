// @ts-check
// Values of keys that look secret (API_KEY, GITHUB_TOKEN, DB_PASSWORD, ...) are masked on
// screen unless --reveal: a terminal is shared, recorded, screenshotted and pasted into issues
// (design §12). Files on disk keep the values, 0600.

/** What sup shows instead of a secret value: it says the value is there, not its length. */
export const MASK = '****'

/** The words a secret-looking key holds, as the issue names them; SUP_SECRET_KEYS replaces them. */
export const DEFAULT_SECRET_WORDS = ['KEY', 'TOKEN', 'SECRET', 'PASSWORD', 'PASSWD', 'CREDENTIAL']

/**
 * The test for a key: any of the words, case-insensitive, anywhere in it. SUP_SECRET_KEYS
 * (comma-separated words) replaces the list; set to "" it masks nothing.
 * @param {NodeJS.ProcessEnv} env the CLI's own environment
 * @returns {(key: string) => boolean}
 */
export function secretKeyTest (env) {
  const words = env.SUP_SECRET_KEYS === undefined
    ? DEFAULT_SECRET_WORDS
    : env.SUP_SECRET_KEYS.split(',').map((w) => w.trim()).filter(Boolean)
  if (words.length === 0) return () => false
  const pattern = new RegExp(words.map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'i')
  return (key) => pattern.test(key)
}

/**
 * A copy with every string whose key looks secret replaced by MASK, at any depth (an app's
 * env, its `sup set` values, a worker's environment).
 * @template T
 * @param {T} value
 * @param {(key: string) => boolean} isSecret
 * @returns {T}
 */
export function maskSecrets (value, isSecret) {
  if (Array.isArray(value)) return /** @type {T} */ (value.map((v) => maskSecrets(v, isSecret)))
  if (value === null || typeof value !== 'object') return value
  return /** @type {T} */ (Object.fromEntries(Object.entries(value).map(([k, v]) => [k, typeof v === 'string' && isSecret(k) ? MASK : maskSecrets(v, isSecret)])))
}
