// @ts-check
// How a cluster app's connections reach its workers. Node fixes cluster.schedulingPolicy
// once per primary, at its first fork, and the daemon is the one primary of every app: so
// the choice is the daemon's, made when it starts (SUP_BALANCE), not an app's.
import { SupError } from './errors.js'

/**
 * rr: the daemon accepts every connection and hands it to the next worker (Node's
 *     SCHED_RR): even spread, and connections queue while workers are replaced.
 * os: every worker accepts on the shared socket itself (SCHED_NONE): no hop through the
 *     daemon per connection, the kernel decides who gets it.
 */
export const BALANCES = /** @type {const} */ (['rr', 'os'])

/** @typedef {typeof BALANCES[number]} Balance */

/** The default, chosen from the figures in docs/benchmarks.md. */
export const DEFAULT_BALANCE = /** @type {Balance} */ ('rr')

/**
 * @param {unknown} value
 * @param {string} source where the value came from, for the message (--balance, SUP_BALANCE)
 * @returns {Balance}
 */
export function parseBalance (value, source) {
  if (typeof value === 'string' && /** @type {readonly string[]} */ (BALANCES).includes(value)) return /** @type {Balance} */ (value)
  throw new SupError('SUP_ERR_CONFIG_INVALID_BALANCE', { source, value })
}

/** The balance an app may choose for itself (its `balance` key): sup's router, not Node's (docs/realtime.md). */
export const APP_BALANCE = 'least-conn'

/**
 * The daemon's balance a `--balance` flag asks for: null for an app's own (least-conn), which
 * the app's config carries instead.
 * @param {unknown} value
 * @param {string} source
 * @returns {Balance | null}
 */
export function daemonBalanceOfFlag (value, source) {
  return value === APP_BALANCE ? null : parseBalance(value, source)
}

/**
 * The balance a daemon started with this environment uses.
 * @param {NodeJS.ProcessEnv} env
 * @returns {Balance}
 */
export function balanceFromEnv (env) {
  return env.SUP_BALANCE ? parseBalance(env.SUP_BALANCE, 'SUP_BALANCE') : DEFAULT_BALANCE
}
