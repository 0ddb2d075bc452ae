// @ts-check
// When sup-runtime should end, and with what exit code: pure functions of the workers' rows,
// table-tested. A container's orchestrator restarts on a non-zero exit, so an app that is
// crash-looping ends the runtime instead of sup's own slow half-open retries.
import { SupError } from '../ipc/errors.js'

/**
 * @typedef {import('../ipc/methods.js').WorkerRow} WorkerRow
 * @typedef {{ code: number, reason: string, error: SupError | null }} Verdict code: the exit code
 */

/**
 * A worker just became `stopped`: was that a failure? Stopped on purpose (it was `stopping`:
 * SIGTERM to the runtime, `sup stop`) is not; exiting by itself is, unless with code 0 or a
 * code of its app's stop_exit_codes.
 * @param {string | undefined} previous its status before
 * @param {WorkerRow} row
 * @param {number[]} stopExitCodes
 */
export function failedWhenStopped (previous, row, stopExitCodes) {
  if (previous === 'stopping') return false
  const exit = row.last_exit
  if (!exit) return false
  if (exit.signal !== null) return true
  return exit.code !== 0 && !stopExitCodes.includes(/** @type {number} */ (exit.code))
}

/**
 * @param {WorkerRow[]} rows every worker now
 * @param {ReadonlySet<number>} failed ids of workers that stopped by failing
 * @returns {Verdict | null} null: keep running
 */
export function runtimeVerdict (rows, failed) {
  const errored = rows.filter((r) => r.status === 'errored')
  if (errored.length > 0) return failure(new SupError('SUP_ERR_RUNTIME_APP_ERRORED', { workers: names(errored) }))
  if (rows.some((r) => r.status !== 'stopped')) return null
  if (rows.length === 0) return { code: 0, reason: 'no apps left', error: null }
  const bad = rows.filter((r) => failed.has(r.id))
  if (bad.length > 0) return failure(new SupError('SUP_ERR_RUNTIME_APPS_FAILED', { workers: names(bad) }))
  return { code: 0, reason: 'every app has stopped', error: null }
}

/** @param {SupError} error @returns {Verdict} */
const failure = (error) => ({ code: 1, reason: error.message, error })

/** @param {WorkerRow[]} rows */
function names (rows) {
  return rows.map((r) => `${r.name}[${r.instance}]`).join(', ')
}

/**
 * One line about a worker's new state, for the runtime's own output; null when not worth one.
 * @param {Omit<WorkerRow, 'status'> & { status: string }} row `status` may be "deleted"
 * @param {number} now
 */
export function describeState (row, now) {
  const who = `${row.name}[${row.instance}]`
  const exit = row.last_exit
  const how = exit ? (exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`) : null
  switch (row.status) {
    case 'online': return `${who} online (pid ${row.pid})`
    case 'waiting': return `${who} exited with ${how}; restarting in ${Math.max(0, (row.retry_at ?? now) - now)} ms`
    case 'errored': return `${who} errored: ${row.unstable_restarts} exits in a row within min_uptime, last with ${how}`
    case 'stopped': return `${who} stopped${how ? ` (${how})` : ''}`
    case 'deleted': return `${who} deleted`
    default: return null
  }
}
