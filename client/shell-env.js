// @ts-check
// The caller's environment, sent with start, restart --update-env, reload --update-env and
// resurrect: the workers inherit it; the daemon never saves it.

import { LISTEN_VARS } from '../ipc/listen-fds.js'

/** systemd's socket-activation variables were meant for this CLI (or its parent), never for an app. */
const DROPPED = new Set(/** @type {readonly string[]} */ (LISTEN_VARS))

/**
 * The environment as strings (unset variables and systemd's LISTEN_* dropped).
 * @param {NodeJS.ProcessEnv} env
 * @returns {Record<string, string>}
 */
export function stringEnv (env) {
  /** @type {Record<string, string>} */
  const out = {}
  for (const [key, value] of Object.entries(env)) if (typeof value === 'string' && !DROPPED.has(key)) out[key] = value
  return out
}
