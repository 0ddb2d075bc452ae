// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { DRAIN_IDLE_MS, STATUS, drainIdleMs, initialState, transition } from '../../../../daemon/worker/lifecycle.js'
import { CRASH_LOOP_RETRY_BASE } from '../../../../daemon/worker/restart-policy.js'

/** @typedef {import('../../../../daemon/worker/lifecycle.js').LifecycleConfig} LifecycleConfig */
/** @typedef {import('../../../../daemon/worker/lifecycle.js').WorkerState} WorkerState */
/** @typedef {import('../../../../daemon/worker/lifecycle.js').WorkerEvent} WorkerEvent */
/** @typedef {import('../../../../daemon/worker/lifecycle.js').Effect} Effect */

const NOW = 1_000_000
const PID = 4242

/** @type {LifecycleConfig} */
const DEFAULTS = deepFreeze({
  autorestart: APP_DEFAULTS.autorestart,
  stop_exit_codes: [...APP_DEFAULTS.stop_exit_codes],
  min_uptime: APP_DEFAULTS.min_uptime,
  max_restarts: APP_DEFAULTS.max_restarts,
  restart_delay: 2000,
  exp_backoff_restart_delay: APP_DEFAULTS.exp_backoff_restart_delay,
  wait_ready: false,
  listen_timeout: APP_DEFAULTS.listen_timeout,
  kill_timeout: APP_DEFAULTS.kill_timeout
})
/** @param {Partial<LifecycleConfig>} overrides */
const config = (overrides) => deepFreeze({ ...DEFAULTS, ...overrides })
const WAIT_READY = config({ wait_ready: true })
const PROBE = { type: /** @type {const} */ ('http'), host: '127.0.0.1', port: null, path: '/ready', status: null, command: [], initial_delay: 0, period: 1000, timeout: 1000, failure_threshold: 3, success_threshold: 1 }
const READINESS = config({ readiness: PROBE })
const READINESS_AND_WAIT = config({ readiness: PROBE, wait_ready: true })

/** @param {Partial<WorkerState>} overrides */
const state = (overrides) => ({ ...initialState(), ...overrides })
const running = (/** @type {Partial<WorkerState>} */ overrides = {}) =>
  state({ pid: PID, startedAt: NOW - 60_000, restarts: 3, ...overrides })

/**
 * Effects written short: 'spawn', 'set-timer:kill:5000', 'clear-timer:ready', 'event:killed'.
 * @param {Effect} effect
 */
function describeEffect (effect) {
  switch (effect.type) {
    case 'set-timer': return `set-timer:${effect.name}:${effect.ms}`
    case 'clear-timer': return `clear-timer:${effect.name}`
    case 'event': return `event:${effect.kind}`
    default: return effect.type
  }
}

const EXIT_CLEANUP = ['clear-timer:ready', 'clear-timer:kill', 'reap-orphans']
const SPAWN = ['clear-timer:retry', 'spawn']

/**
 * @typedef {object} Case
 * @property {string} name
 * @property {LifecycleConfig} [config]
 * @property {WorkerState} from
 * @property {WorkerEvent} event
 * @property {string} status expected
 * @property {string[]} effects expected, in order (see describeEffect)
 * @property {Partial<WorkerState>} [fields] expected values of these fields
 */

/** @type {Case[]} */
const cases = [
  // start
  { name: 'start from stopped spawns, restarts unchanged', from: state({ restarts: 3 }), event: { type: 'start' }, status: STATUS.STARTING, effects: SPAWN, fields: { restarts: 3, retryAt: null, afterStop: null } },
  { name: 'start from waiting spawns now, restarts+1', from: running({ status: STATUS.WAITING, pid: null, retryAt: NOW + 5000 }), event: { type: 'start' }, status: STATUS.STARTING, effects: SPAWN, fields: { restarts: 4, retryAt: null } },
  { name: 'start from errored spawns now, restarts+1', from: running({ status: STATUS.ERRORED, pid: null, retryAt: NOW + 30_000 }), event: { type: 'start' }, status: STATUS.STARTING, effects: SPAWN, fields: { restarts: 4, retryAt: null } },
  { name: 'start while stopping starts once stopped', from: running({ status: STATUS.STOPPING }), event: { type: 'start' }, status: STATUS.STOPPING, effects: [], fields: { afterStop: 'start', restarts: 3, pid: PID } },
  { name: 'start while starting is ignored', from: running({ status: STATUS.STARTING }), event: { type: 'start' }, status: STATUS.STARTING, effects: [], fields: { restarts: 3 } },
  { name: 'start while online is ignored', from: running({ status: STATUS.ONLINE }), event: { type: 'start' }, status: STATUS.ONLINE, effects: [], fields: { restarts: 3 } },

  // spawned
  { name: 'spawned sets pid and startedAt and arms the ready timer with min_uptime', from: state({ status: STATUS.STARTING, listening: true }), event: { type: 'spawned', pid: PID }, status: STATUS.STARTING, effects: [`set-timer:ready:${DEFAULTS.min_uptime}`], fields: { pid: PID, startedAt: NOW, listening: false } },
  { name: 'spawned with wait_ready arms the ready timer with listen_timeout', config: WAIT_READY, from: state({ status: STATUS.STARTING }), event: { type: 'spawned', pid: PID }, status: STATUS.STARTING, effects: [`set-timer:ready:${DEFAULTS.listen_timeout}`], fields: { pid: PID, startedAt: NOW } },
  { name: 'spawned when not starting is stale', from: state({ status: STATUS.STOPPED }), event: { type: 'spawned', pid: PID }, status: STATUS.STOPPED, effects: [], fields: { pid: null, startedAt: null } },

  // listening / ready
  { name: 'listening makes a starting worker online', from: running({ status: STATUS.STARTING }), event: { type: 'listening' }, status: STATUS.ONLINE, effects: ['clear-timer:ready'], fields: { listening: true } },
  { name: 'listening with wait_ready only records it', config: WAIT_READY, from: running({ status: STATUS.STARTING }), event: { type: 'listening' }, status: STATUS.STARTING, effects: [], fields: { listening: true } },
  { name: 'listening while online records it', from: running({ status: STATUS.ONLINE }), event: { type: 'listening' }, status: STATUS.ONLINE, effects: [], fields: { listening: true } },
  { name: 'ready makes a starting worker online', config: WAIT_READY, from: running({ status: STATUS.STARTING }), event: { type: 'ready' }, status: STATUS.ONLINE, effects: ['clear-timer:ready'] },
  { name: 'ready without wait_ready also makes it online', from: running({ status: STATUS.STARTING }), event: { type: 'ready' }, status: STATUS.ONLINE, effects: ['clear-timer:ready'] },
  { name: 'ready while online is ignored', from: running({ status: STATUS.ONLINE }), event: { type: 'ready' }, status: STATUS.ONLINE, effects: [] },
  { name: 'ready while stopping is ignored', from: running({ status: STATUS.STOPPING }), event: { type: 'ready' }, status: STATUS.STOPPING, effects: [] },

  // ready timer
  { name: 'the ready timer makes an app that never listens online', from: running({ status: STATUS.STARTING }), event: { type: 'timer', name: 'ready' }, status: STATUS.ONLINE, effects: ['clear-timer:ready'] },
  { name: 'the ready timer with wait_ready makes it online with a warning', config: WAIT_READY, from: running({ status: STATUS.STARTING }), event: { type: 'timer', name: 'ready' }, status: STATUS.ONLINE, effects: ['clear-timer:ready', 'event:ready-timeout'] },

  // exit
  { name: 'exit while online waits restart_delay, then retries', from: running({ status: STATUS.ONLINE, listening: true }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.WAITING, effects: [...EXIT_CLEANUP, 'event:restarting', `set-timer:retry:${DEFAULTS.restart_delay}`], fields: { pid: null, listening: false, lastExit: { code: 1, signal: null, at: NOW }, retryAt: NOW + DEFAULTS.restart_delay, unstableRestarts: 0, restarts: 3 } },
  { name: 'exit by signal while online records the signal', from: running({ status: STATUS.ONLINE }), event: { type: 'exit', code: null, signal: 'SIGKILL' }, status: STATUS.WAITING, effects: [...EXIT_CLEANUP, 'event:restarting', `set-timer:retry:${DEFAULTS.restart_delay}`], fields: { lastExit: { code: null, signal: 'SIGKILL', at: NOW } } },
  { name: 'a fast exit while starting is counted', from: running({ status: STATUS.STARTING, startedAt: NOW - 10, unstableRestarts: 2 }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.WAITING, effects: [...EXIT_CLEANUP, 'event:restarting', `set-timer:retry:${DEFAULTS.restart_delay}`], fields: { unstableRestarts: 3 } },
  { name: 'a crash loop is errored, retried after the crash-loop delay', from: running({ status: STATUS.STARTING, startedAt: NOW - 10, unstableRestarts: DEFAULTS.max_restarts }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.ERRORED, effects: [...EXIT_CLEANUP, 'event:crash-loop', `set-timer:retry:${CRASH_LOOP_RETRY_BASE}`], fields: { pid: null, unstableRestarts: DEFAULTS.max_restarts + 1, crashLoops: 1, retryAt: NOW + CRASH_LOOP_RETRY_BASE } },
  { name: 'an errored worker keeps its backoff', config: config({ exp_backoff_restart_delay: 100 }), from: running({ status: STATUS.STARTING, startedAt: NOW - 10, unstableRestarts: DEFAULTS.max_restarts, backoff: 225 }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.ERRORED, effects: [...EXIT_CLEANUP, 'event:crash-loop', `set-timer:retry:${CRASH_LOOP_RETRY_BASE}`], fields: { backoff: 225 } },
  { name: 'exponential backoff is remembered', config: config({ exp_backoff_restart_delay: 100 }), from: running({ status: STATUS.ONLINE, startedAt: NOW - 5000, backoff: 100 }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.WAITING, effects: [...EXIT_CLEANUP, 'event:restarting', 'set-timer:retry:150'], fields: { backoff: 150, retryAt: NOW + 150 } },
  { name: 'exit with autorestart off stops', config: config({ autorestart: false }), from: running({ status: STATUS.ONLINE }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:not-restarting'], fields: { pid: null, retryAt: null, restarts: 3 } },
  { name: 'exit with a stop exit code stops', config: config({ stop_exit_codes: [0] }), from: running({ status: STATUS.ONLINE }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:not-restarting'], fields: { lastExit: { code: 0, signal: null, at: NOW } } },
  { name: 'exit while stopping is stopped', from: running({ status: STATUS.STOPPING }), event: { type: 'exit', code: null, signal: 'SIGINT' }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:exited'], fields: { pid: null, afterStop: null, restarts: 3, lastExit: { code: null, signal: 'SIGINT', at: NOW } } },
  { name: 'exit while stopping for a restart starts again, restarts+1', from: running({ status: STATUS.STOPPING, afterStop: 'start' }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STARTING, effects: [...EXIT_CLEANUP, 'event:exited', ...SPAWN], fields: { pid: null, afterStop: null, restarts: 4 } },
  { name: 'exit while stopping for a delete removes the worker', from: running({ status: STATUS.STOPPING, afterStop: 'remove' }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:exited', 'remove'], fields: { pid: null, afterStop: null } },
  { name: 'a late exit while stopped only cleans up', from: state({ status: STATUS.STOPPED, restarts: 3 }), event: { type: 'exit', code: 1, signal: null }, status: STATUS.STOPPED, effects: EXIT_CLEANUP, fields: { restarts: 3, retryAt: null } },

  // stop
  { name: 'stop while online asks it to stop and arms the kill timer', from: running({ status: STATUS.ONLINE }), event: { type: 'stop' }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { afterStop: null, pid: PID } },
  { name: 'stop while starting uses kill_timeout as configured', config: config({ kill_timeout: 1234 }), from: running({ status: STATUS.STARTING }), event: { type: 'stop', afterStop: 'start' }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', 'set-timer:kill:1234'], fields: { afterStop: 'start' } },
  { name: 'stop for a delete while online remembers the removal', from: running({ status: STATUS.ONLINE }), event: { type: 'stop', afterStop: 'remove' }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { afterStop: 'remove' } },
  { name: 'stop for a delete while stopping turns into a removal', from: running({ status: STATUS.STOPPING }), event: { type: 'stop', afterStop: 'remove' }, status: STATUS.STOPPING, effects: [], fields: { afterStop: 'remove' } },
  { name: 'stop while waiting is stopped and the retry timer cleared', from: running({ status: STATUS.WAITING, pid: null, retryAt: NOW + 2000 }), event: { type: 'stop' }, status: STATUS.STOPPED, effects: ['clear-timer:retry'], fields: { retryAt: null, afterStop: null } },
  { name: 'stop while errored is stopped and the retry timer cleared', from: running({ status: STATUS.ERRORED, pid: null, retryAt: NOW + 30_000 }), event: { type: 'stop' }, status: STATUS.STOPPED, effects: ['clear-timer:retry'], fields: { retryAt: null } },
  { name: 'stop while stopped is a no-op apart from the timer', from: state({ status: STATUS.STOPPED }), event: { type: 'stop' }, status: STATUS.STOPPED, effects: ['clear-timer:retry'], fields: { afterStop: null } },
  { name: 'restart of a waiting worker starts it now, restarts+1', from: running({ status: STATUS.WAITING, pid: null, retryAt: NOW + 2000 }), event: { type: 'stop', afterStop: 'start' }, status: STATUS.STARTING, effects: ['clear-timer:retry', ...SPAWN], fields: { restarts: 4, retryAt: null, afterStop: null } },
  { name: 'delete of a stopped worker removes it at once', from: state({ status: STATUS.STOPPED }), event: { type: 'stop', afterStop: 'remove' }, status: STATUS.STOPPED, effects: ['clear-timer:retry', 'remove'], fields: { afterStop: null } },

  // drain (reload, scale down)
  { name: 'stop with drain while online drains before the ladder', from: running({ status: STATUS.ONLINE }), event: { type: 'stop', afterStop: 'remove', drain: true }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'drain', `set-timer:drain:${DEFAULTS.kill_timeout}`], fields: { draining: true, afterStop: 'remove', pid: PID } },
  { name: 'stop with drain while starting and listening (a gated wait_ready worker) drains', from: running({ status: STATUS.STARTING, listening: true }), event: { type: 'stop', afterStop: 'remove', drain: true }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'drain', `set-timer:drain:${DEFAULTS.kill_timeout}`], fields: { draining: true } },
  { name: 'stop with drain while starting is a plain stop (nothing to drain)', from: running({ status: STATUS.STARTING }), event: { type: 'stop', afterStop: 'remove', drain: true }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { draining: false } },
  { name: 'drained goes on with the stop ladder', from: running({ status: STATUS.STOPPING, draining: true, afterStop: 'remove' }), event: { type: 'drained' }, status: STATUS.STOPPING, effects: ['clear-timer:drain', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { draining: false, afterStop: 'remove' } },
  { name: 'the drain timer stops it anyway, with a warning', from: running({ status: STATUS.STOPPING, draining: true }), event: { type: 'timer', name: 'drain' }, status: STATUS.STOPPING, effects: ['event:drain-timeout', 'clear-timer:drain', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { draining: false } },
  { name: 'stale: drained when not draining', from: running({ status: STATUS.STOPPING }), event: { type: 'drained' }, status: STATUS.STOPPING, effects: [] },
  { name: 'stale: drain timer after the drain', from: running({ status: STATUS.STOPPING }), event: { type: 'timer', name: 'drain' }, status: STATUS.STOPPING, effects: [] },
  { name: 'lingering while draining (only long-lived connections left) is noted; the rollout decides', from: running({ status: STATUS.STOPPING, draining: true }), event: { type: 'lingering', connections: 4 }, status: STATUS.STOPPING, effects: [], fields: { lingering: 4, draining: true } },
  { name: 'stale: lingering when not draining', from: running({ status: STATUS.STOPPING }), event: { type: 'lingering', connections: 4 }, status: STATUS.STOPPING, effects: [], fields: { lingering: 0 } },
  { name: 'shut-down while draining: the stop ladder now, kill_timeout counted from here', from: running({ status: STATUS.STOPPING, draining: true, lingering: 4, afterStop: 'remove' }), event: { type: 'shut-down' }, status: STATUS.STOPPING, effects: ['event:lingering', 'clear-timer:drain', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { draining: false, afterStop: 'remove' } },
  { name: 'stale: shut-down after the drain', from: running({ status: STATUS.STOPPING }), event: { type: 'shut-down' }, status: STATUS.STOPPING, effects: [] },
  { name: 'an exit forgets lingering', from: running({ status: STATUS.STOPPING, lingering: 4, afterStop: 'remove' }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:exited', 'remove'], fields: { lingering: 0 } },
  { name: 'an exit while draining clears the drain timer and finishes the stop', from: running({ status: STATUS.STOPPING, draining: true, afterStop: 'remove' }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STOPPED, effects: ['clear-timer:drain', ...EXIT_CLEANUP, 'event:exited', 'remove'], fields: { draining: false, pid: null } },
  { name: 'drain uses a short idle time when kill_timeout is short', config: config({ kill_timeout: 600 }), from: running({ status: STATUS.ONLINE }), event: { type: 'stop', drain: true }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'drain', 'set-timer:drain:600'] },
  { name: 'ready while online records that the app said ready', from: running({ status: STATUS.ONLINE }), event: { type: 'ready' }, status: STATUS.ONLINE, effects: [], fields: { ready: true } },
  { name: 'a new spawn forgets ready and draining', from: running({ status: STATUS.STOPPED, ready: true, draining: true }), event: { type: 'start' }, status: STATUS.STARTING, effects: SPAWN, fields: { ready: false, draining: false } },

  // timers
  { name: 'the kill timer while stopping kills the tree', from: running({ status: STATUS.STOPPING }), event: { type: 'timer', name: 'kill' }, status: STATUS.STOPPING, effects: ['event:killed', 'kill-tree'], fields: { pid: PID } },
  { name: 'the retry timer while waiting spawns, restarts+1', from: running({ status: STATUS.WAITING, pid: null, retryAt: NOW }), event: { type: 'timer', name: 'retry' }, status: STATUS.STARTING, effects: SPAWN, fields: { restarts: 4, retryAt: null } },
  { name: 'the retry timer while errored spawns (half-open), restarts+1', from: running({ status: STATUS.ERRORED, pid: null, retryAt: NOW, crashLoops: 1 }), event: { type: 'timer', name: 'retry' }, status: STATUS.STARTING, effects: SPAWN, fields: { restarts: 4, crashLoops: 1 } },
  { name: 'stale: kill timer while online', from: running({ status: STATUS.ONLINE }), event: { type: 'timer', name: 'kill' }, status: STATUS.ONLINE, effects: [] },
  { name: 'stale: kill timer while stopped', from: state({ status: STATUS.STOPPED }), event: { type: 'timer', name: 'kill' }, status: STATUS.STOPPED, effects: [] },
  { name: 'stale: retry timer while online', from: running({ status: STATUS.ONLINE }), event: { type: 'timer', name: 'retry' }, status: STATUS.ONLINE, effects: [], fields: { restarts: 3 } },
  { name: 'stale: retry timer while stopped', from: state({ status: STATUS.STOPPED }), event: { type: 'timer', name: 'retry' }, status: STATUS.STOPPED, effects: [] },
  { name: 'stale: ready timer while online', from: running({ status: STATUS.ONLINE }), event: { type: 'timer', name: 'ready' }, status: STATUS.ONLINE, effects: [] },
  { name: 'stale: ready timer while stopping', from: running({ status: STATUS.STOPPING }), event: { type: 'timer', name: 'ready' }, status: STATUS.STOPPING, effects: [] },

  // probes (docs/probes.md)
  { name: 'spawned with a readiness probe arms no ready timer: only the probe makes it online', config: READINESS, from: state({ status: STATUS.STARTING }), event: { type: 'spawned', pid: PID }, status: STATUS.STARTING, effects: [], fields: { pid: PID, startedAt: NOW } },
  { name: 'listening with a readiness probe only records it', config: READINESS, from: running({ status: STATUS.STARTING }), event: { type: 'listening' }, status: STATUS.STARTING, effects: [], fields: { listening: true } },
  { name: 'ready with a readiness probe that has not passed only records it', config: READINESS_AND_WAIT, from: running({ status: STATUS.STARTING }), event: { type: 'ready' }, status: STATUS.STARTING, effects: [], fields: { ready: true } },
  { name: 'readiness passing makes a starting worker online', config: READINESS, from: running({ status: STATUS.STARTING }), event: { type: 'probe', kind: 'readiness', passing: true }, status: STATUS.ONLINE, effects: ['clear-timer:ready'], fields: { probeReady: true } },
  { name: 'readiness passing with wait_ready waits for ready too', config: READINESS_AND_WAIT, from: running({ status: STATUS.STARTING }), event: { type: 'probe', kind: 'readiness', passing: true }, status: STATUS.STARTING, effects: [], fields: { probeReady: true } },
  { name: 'readiness passing after ready makes it online', config: READINESS_AND_WAIT, from: running({ status: STATUS.STARTING, ready: true }), event: { type: 'probe', kind: 'readiness', passing: true }, status: STATUS.ONLINE, effects: ['clear-timer:ready'] },
  { name: 'readiness failing while online keeps it online, not ready', config: READINESS, from: running({ status: STATUS.ONLINE, probeReady: true }), event: { type: 'probe', kind: 'readiness', passing: false }, status: STATUS.ONLINE, effects: [], fields: { probeReady: false } },
  { name: 'liveness failing while online restarts it through the stop ladder, counted with the reason', from: running({ status: STATUS.ONLINE }), event: { type: 'probe', kind: 'liveness', passing: false, reason: 'timed out after 1000 ms' }, status: STATUS.STOPPING, effects: ['event:liveness', 'clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { afterStop: 'start', livenessRestarts: 1, lastRestart: { reason: 'liveness probe failed: timed out after 1000 ms', at: NOW }, restarts: 3 } },
  { name: 'liveness failing while stopping is ignored', from: running({ status: STATUS.STOPPING }), event: { type: 'probe', kind: 'liveness', passing: false, reason: 'x' }, status: STATUS.STOPPING, effects: [], fields: { livenessRestarts: 0 } },
  { name: 'liveness passing again changes nothing', from: running({ status: STATUS.ONLINE }), event: { type: 'probe', kind: 'liveness', passing: true }, status: STATUS.ONLINE, effects: [] },
  { name: 'the restart after a liveness failure counts as a restart', from: running({ status: STATUS.STOPPING, afterStop: 'start', livenessRestarts: 1 }), event: { type: 'exit', code: null, signal: 'SIGKILL' }, status: STATUS.STARTING, effects: [...EXIT_CLEANUP, 'event:exited', ...SPAWN], fields: { restarts: 4, livenessRestarts: 1, probeReady: false } },

  // reset
  { name: 'reset zeroes the counters and keeps the rest', from: running({ status: STATUS.ONLINE, restarts: 7, unstableRestarts: 2, backoff: 1500, crashLoops: 3 }), event: { type: 'reset' }, status: STATUS.ONLINE, effects: [], fields: { restarts: 0, unstableRestarts: 0, backoff: 0, crashLoops: 0, pid: PID } },
  { name: 'reset zeroes the liveness restarts too', from: running({ status: STATUS.ONLINE, livenessRestarts: 2 }), event: { type: 'reset' }, status: STATUS.ONLINE, effects: [], fields: { livenessRestarts: 0 } },
  { name: 'a successor carries the restart count of the worker it replaced', from: running({ status: STATUS.ONLINE, restarts: 0 }), event: { type: 'carry-restarts', restarts: 4 }, status: STATUS.ONLINE, effects: [], fields: { restarts: 4, pid: PID } },

  // held: stopped on purpose (`sup stop`, autostart: false, a dependency not ready), until a start
  { name: 'a new worker is not held', from: state({}), event: { type: 'reset' }, status: STATUS.STOPPED, effects: [], fields: { held: false } },
  { name: 'hold keeps a stopped worker from starting, and does nothing else', from: state({ status: STATUS.STOPPED }), event: { type: 'hold' }, status: STATUS.STOPPED, effects: [], fields: { held: true, afterStop: null } },
  { name: '`sup stop` of an online worker holds it', from: running({ status: STATUS.ONLINE }), event: { type: 'stop', hold: true }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { held: true, afterStop: null } },
  { name: '`sup stop` of a waiting worker holds it, stopped', from: running({ status: STATUS.WAITING, pid: null, retryAt: NOW + 2000 }), event: { type: 'stop', hold: true }, status: STATUS.STOPPED, effects: ['clear-timer:retry'], fields: { held: true } },
  { name: 'a stop that is not `sup stop` (a delete, a scale down) leaves the hold as it was', from: running({ status: STATUS.ONLINE }), event: { type: 'stop', afterStop: 'remove' }, status: STATUS.STOPPING, effects: ['clear-timer:ready', 'graceful-stop', `set-timer:kill:${DEFAULTS.kill_timeout}`], fields: { held: false } },
  { name: 'the exit of a held worker keeps it held', from: running({ status: STATUS.STOPPING, held: true }), event: { type: 'exit', code: 0, signal: null }, status: STATUS.STOPPED, effects: [...EXIT_CLEANUP, 'event:exited'], fields: { held: true } },
  { name: 'start lifts the hold of a stopped worker', from: state({ status: STATUS.STOPPED, held: true }), event: { type: 'start' }, status: STATUS.STARTING, effects: SPAWN, fields: { held: false } },
  { name: 'start lifts the hold of a worker still stopping, and starts it once stopped', from: running({ status: STATUS.STOPPING, held: true }), event: { type: 'start' }, status: STATUS.STOPPING, effects: [], fields: { held: false, afterStop: 'start' } },
  { name: 'a restart (stop, then start) lifts the hold', from: running({ status: STATUS.STOPPING, held: true }), event: { type: 'stop', afterStop: 'start' }, status: STATUS.STOPPING, effects: [], fields: { held: false, afterStop: 'start' } },
  { name: 'a restart of a held stopped worker starts it, no longer held', from: state({ status: STATUS.STOPPED, held: true }), event: { type: 'stop', afterStop: 'start' }, status: STATUS.STARTING, effects: ['clear-timer:retry', ...SPAWN], fields: { held: false } }
]

describe('transition', () => {
  for (const c of cases) {
    test(`${c.from.status} + ${c.event.type}${'name' in c.event ? `:${c.event.name}` : ''}: ${c.name}`, () => {
      const from = deepFreeze(structuredClone(c.from))
      const before = structuredClone(from)
      const result = transition(c.config ?? DEFAULTS, from, c.event, NOW)
      assert.equal(result.state.status, c.status)
      assert.deepEqual(result.effects.map(describeEffect), c.effects)
      const fields = c.fields ?? {}
      assert.deepEqual(pick(result.state, Object.keys(fields)), fields)
      assert.deepEqual(from, before, 'the input state is not mutated')
    })
  }

  test('a no-op leaves the state as it was', () => {
    const from = deepFreeze(running({ status: STATUS.ONLINE }))
    const { state: next, effects } = transition(DEFAULTS, from, { type: 'timer', name: 'kill' }, NOW)
    assert.deepEqual(next, from)
    assert.deepEqual(effects, [])
  })

  test('set-timer and event effects carry what the runner needs', () => {
    const { effects } = transition(WAIT_READY, deepFreeze(running({ status: STATUS.STARTING })), { type: 'timer', name: 'ready' }, NOW)
    const event = effects.find((e) => e.type === 'event')
    assert.ok(event && event.type === 'event')
    assert.equal(event.level, 'warn')
    assert.match(event.message, new RegExp(String(DEFAULTS.listen_timeout)))
  })

  test('an exit says why and what comes next, in words and in figures', () => {
    const crashed = transition(DEFAULTS, deepFreeze(running({ status: STATUS.ONLINE, startedAt: NOW - 2000, restarts: 3 })), { type: 'exit', code: 3, signal: null }, NOW)
    const restarting = crashed.effects.find((e) => e.type === 'event')
    assert.ok(restarting && restarting.type === 'event')
    assert.equal(restarting.message, `exited with code 3; restarting in ${DEFAULTS.restart_delay} ms`)
    assert.deepEqual(restarting.data, { code: 3, signal: null, uptime: 2000, delay: DEFAULTS.restart_delay, retry_at: NOW + DEFAULTS.restart_delay, unstable_restarts: crashed.state.unstableRestarts, attempt: 4 })
    const looping = transition(DEFAULTS, deepFreeze(running({ status: STATUS.STARTING, startedAt: NOW - 10, unstableRestarts: DEFAULTS.max_restarts })), { type: 'exit', code: null, signal: 'SIGSEGV' }, NOW)
    const loop = looping.effects.find((e) => e.type === 'event')
    assert.ok(loop && loop.type === 'event')
    assert.equal(loop.level, 'error')
    assert.match(loop.message, /^exited with signal SIGSEGV; crash loop \(\d+ exits within min_uptime \d+ ms\), retrying in 30000 ms$/)
    assert.equal(loop.data?.retry_at, NOW + CRASH_LOOP_RETRY_BASE)
  })
})

describe('a worker story, event by event', () => {
  /**
   * Feed events in order; returns every state and effect list.
   * @param {LifecycleConfig} cfg
   * @param {Array<[number, WorkerEvent]>} steps [now, event]
   */
  function play (cfg, steps) {
    let current = deepFreeze(initialState())
    const seen = []
    for (const [now, event] of steps) {
      const { state: next, effects } = transition(cfg, current, event, now)
      seen.push({ status: next.status, restarts: next.restarts, effects: effects.map(describeEffect) })
      current = deepFreeze(next)
    }
    return { final: current, seen }
  }

  test('start, serve, crash, wait, restart', () => {
    const { final, seen } = play(DEFAULTS, [
      [0, { type: 'start' }],
      [1, { type: 'spawned', pid: 10 }],
      [50, { type: 'listening' }],
      [60_000, { type: 'exit', code: 1, signal: null }],
      [62_000, { type: 'timer', name: 'retry' }],
      [62_001, { type: 'spawned', pid: 11 }]
    ])
    assert.deepEqual(seen.map((s) => s.status), ['starting', 'starting', 'online', 'waiting', 'starting', 'starting'])
    assert.deepEqual(seen.map((s) => s.restarts), [0, 0, 0, 0, 1, 1])
    assert.equal(final.pid, 11)
    assert.equal(final.startedAt, 62_001)
  })

  test('max_restarts+1 fast crashes end in errored, then a half-open retry', () => {
    const cfg = config({ max_restarts: 2, restart_delay: 0 })
    /** @type {Array<[number, WorkerEvent]>} */
    const steps = [[0, { type: 'start' }]]
    let t = 0
    for (let i = 0; i < 3; i++) {
      steps.push([t, { type: 'spawned', pid: 100 + i }], [t + 10, { type: 'exit', code: 1, signal: null }])
      if (i < 2) steps.push([t + 10, { type: 'timer', name: 'retry' }])
      t += 10
    }
    const { final, seen } = play(cfg, steps)
    assert.deepEqual(seen.filter((s) => s.status === 'waiting' || s.status === 'errored').map((s) => s.status), ['waiting', 'waiting', 'errored'])
    assert.equal(final.status, STATUS.ERRORED)
    assert.equal(final.crashLoops, 1)
    assert.equal(final.retryAt, t + CRASH_LOOP_RETRY_BASE)
    const retried = transition(cfg, final, { type: 'timer', name: 'retry' }, final.retryAt ?? 0)
    assert.equal(retried.state.status, STATUS.STARTING)
    assert.equal(retried.state.restarts, final.restarts + 1)
  })

  test('restart: stop with afterStop=start goes through stopping back to starting', () => {
    const { final, seen } = play(DEFAULTS, [
      [0, { type: 'start' }],
      [1, { type: 'spawned', pid: 10 }],
      [2, { type: 'listening' }],
      [5000, { type: 'stop', afterStop: 'start' }],
      [5100, { type: 'exit', code: 0, signal: null }]
    ])
    assert.deepEqual(seen.map((s) => s.status), ['starting', 'starting', 'online', 'stopping', 'starting'])
    assert.equal(final.restarts, 1)
    assert.equal(final.afterStop, null)
  })
})

/**
 * Freeze an object and everything it holds.
 * @template T
 * @param {T} value
 * @returns {T}
 */
function deepFreeze (value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const inner of Object.values(value)) deepFreeze(inner)
  }
  return value
}

/**
 * @param {object} obj
 * @param {string[]} keys
 */
function pick (obj, keys) {
  return Object.fromEntries(keys.map((key) => [key, /** @type {Record<string, unknown>} */ (obj)[key]]))
}

describe('regressions', () => {
  const config = { autorestart: true, stop_exit_codes: [], min_uptime: 1000, max_restarts: 2, restart_delay: 0, exp_backoff_restart_delay: 0, wait_ready: false, listen_timeout: 8000, kill_timeout: 5000 }

  test('a spawn that fails before "spawned" counts as a fast exit, so it ends errored, not in a hot loop', () => {
    let state = transition(config, initialState(), { type: 'start' }, 0).state
    state = transition(config, state, { type: 'spawned', pid: 1 }, 0).state
    state = transition(config, state, { type: 'listening' }, 0).state
    state = transition(config, state, { type: 'exit', code: 1, signal: null }, 3_600_000).state
    for (let i = 0; i < 10 && state.status === 'waiting'; i++) {
      state = transition(config, state, { type: 'timer', name: 'retry' }, 3_600_000 + i).state
      state = transition(config, state, { type: 'exit', code: 127, signal: null }, 3_600_000 + i).state
    }
    assert.equal(state.status, 'errored')
    assert.equal(state.unstableRestarts, 3)
  })

  test('a plain stop while a restart is stopping cancels the restart', () => {
    let state = transition(config, initialState(), { type: 'start' }, 0).state
    state = transition(config, state, { type: 'spawned', pid: 1 }, 0).state
    state = transition(config, state, { type: 'stop', afterStop: 'start' }, 10).state
    state = transition(config, state, { type: 'stop' }, 20).state
    state = transition(config, state, { type: 'exit', code: 0, signal: null }, 30).state
    assert.equal(state.status, 'stopped')
  })

  test('a stop does not undo a pending delete', () => {
    let state = transition(config, initialState(), { type: 'start' }, 0).state
    state = transition(config, state, { type: 'spawned', pid: 1 }, 0).state
    state = transition(config, state, { type: 'stop', afterStop: 'remove' }, 10).state
    state = transition(config, state, { type: 'stop' }, 20).state
    const { effects } = transition(config, state, { type: 'exit', code: 0, signal: null }, 30)
    assert.ok(effects.some((e) => e.type === 'remove'))
  })
})

describe('drainIdleMs', () => {
  const rows = /** @type {Array<[number, number]>} */ ([[5000, DRAIN_IDLE_MS], [2000, DRAIN_IDLE_MS], [1200, 600], [1, 1], [0, 1]])
  for (const [killTimeout, expected] of rows) {
    test(`kill_timeout ${killTimeout} → ${expected} ms`, () => {
      assert.equal(drainIdleMs(config({ kill_timeout: killTimeout })), expected)
    })
  }
})
