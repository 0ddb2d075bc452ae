// @ts-check
// The caller's environment, sent with start, restart --update-env, reload --update-env and
// resurrect: the workers inherit it; the daemon never saves it.

/**
 * The environment as strings (unset variables dropped).
 * @param {NodeJS.ProcessEnv} env
 * @returns {Record<string, string>}
 */
export function stringEnv (env) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const [key, value] of Object.entries(env)) if (typeof value === 'string') out[key] = value
  return out
}
