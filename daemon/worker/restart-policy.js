// @ts-check
// What to do after a worker exits on its own: a pure function of (config, state, exit, now).
// PM2 inlines these numbers in God.handleExit; here they are named and table-tested.

/** Exponential backoff grows by this factor per consecutive restart. */
export const BACKOFF_FACTOR = 1.5
/** ...and never waits longer than this (ms). */
export const BACKOFF_CAP = 15_000
/** A worker that stayed up this long (ms) starts its backoff from scratch. */
export const BACKOFF_RESET_UPTIME = 30_000
/** First retry of a crash-looping (errored) worker, doubled per loop up to the cap (ms). */
export const CRASH_LOOP_RETRY_BASE = 30_000
export const CRASH_LOOP_RETRY_CAP = 300_000

/**
 * @typedef {Pick<import('../../ipc/app-config.js').AppConfig,
 *   'autorestart' | 'stop_exit_codes' | 'min_uptime' | 'max_restarts' | 'restart_delay' | 'exp_backoff_restart_delay'>} PolicyConfig
 * @typedef {{ startedAt: number | null, unstableRestarts: number, backoff: number, crashLoops: number }} PolicyState
 * @typedef {{ code: number | null, signal: string | null }} ExitInfo
 * @typedef {{ action: 'stop', reason: string }
 *   | { action: 'restart', delay: number, unstableRestarts: number, backoff: number, crashLoops: number }
 *   | { action: 'errored', delay: number, unstableRestarts: number, crashLoops: number }} Decision
 */

/**
 * Decide the fate of a worker that exited while it was supposed to run.
 * @param {PolicyConfig} config
 * @param {PolicyState} state
 * @param {ExitInfo} exit
 * @param {number} now ms
 * @returns {Decision}
 */
export function decideAfterExit (config, state, exit, now) {
  if (!config.autorestart) return { action: 'stop', reason: 'autorestart is off' }
  if (exit.code !== null && config.stop_exit_codes.includes(exit.code)) {
    return { action: 'stop', reason: `exit code ${exit.code} is in stop_exit_codes` }
  }
  const uptime = state.startedAt === null ? 0 : now - state.startedAt
  const stable = uptime >= config.min_uptime
  const unstableRestarts = stable ? 0 : state.unstableRestarts + 1
  // A worker that has since proven itself earns a fresh crash-loop count.
  const crashLoops = uptime >= BACKOFF_RESET_UPTIME ? 0 : state.crashLoops

  if (unstableRestarts > config.max_restarts) {
    return { action: 'errored', delay: crashLoopRetryDelay(crashLoops), unstableRestarts, crashLoops: crashLoops + 1 }
  }
  if (config.exp_backoff_restart_delay > 0) {
    const previous = uptime >= BACKOFF_RESET_UPTIME ? 0 : state.backoff
    const delay = previous === 0
      ? config.exp_backoff_restart_delay
      : Math.min(Math.round(previous * BACKOFF_FACTOR), BACKOFF_CAP)
    return { action: 'restart', delay, unstableRestarts, backoff: delay, crashLoops }
  }
  return { action: 'restart', delay: config.restart_delay, unstableRestarts, backoff: 0, crashLoops }
}

/**
 * How long an errored app waits before its half-open retry (like Kubernetes' CrashLoopBackOff).
 * @param {number} crashLoops how many times it has already been errored in a row
 */
export function crashLoopRetryDelay (crashLoops) {
  return Math.min(CRASH_LOOP_RETRY_BASE * 2 ** crashLoops, CRASH_LOOP_RETRY_CAP)
}
