// @ts-check
// The worker lifecycle as one transition table: (config, state, event, now) → (state, effects).
// No timers, processes or I/O here; daemon/worker/worker.js carries out the effects.
import { crashLoopRetryDelay, decideAfterExit } from './restart-policy.js'

/** The words `sup ls` shows (design §3). */
export const STATUS = Object.freeze({
  STARTING: 'starting',
  ONLINE: 'online',
  STOPPING: 'stopping',
  STOPPED: 'stopped',
  WAITING: 'waiting',
  ERRORED: 'errored'
})

/**
 * What the daemon asks of a worker's status, defined once (the callers used to re-derive them).
 * @typedef {Pick<WorkerState, 'status'>} HasStatus
 */

/** A process is there, or on its way in or out: `ls` shows its uptime and figures. @param {HasStatus} s */
export const isRunning = (s) => s.status === STATUS.ONLINE || s.status === STATUS.STARTING || s.status === STATUS.STOPPING
/** Past stopping and starting, with no follow-up pending (a restart has run its course). @param {Pick<WorkerState, 'status' | 'afterStop'>} s */
export const isSettled = (s) => s.status !== STATUS.STARTING && s.status !== STATUS.STOPPING && s.afterStop === null
/**
 * The first attempt is decided: up, given up on (errored), exited for good (stopped), or exited
 * and waiting to be tried again. `sup start` answers then, as PM2's does; a crash loop goes on
 * in the background (sup ls follows it).
 * @param {HasStatus} s
 */
export const isDecided = (s) => s.status !== STATUS.STARTING && s.status !== STATUS.STOPPING
/** @param {HasStatus} s */
export const isStopped = (s) => s.status === STATUS.STOPPED
/** On its way down or down: stopped, or stopping. @param {HasStatus} s */
export const isStoppingOrStopped = (s) => s.status === STATUS.STOPPING || s.status === STATUS.STOPPED

/**
 * @typedef {typeof STATUS[keyof typeof STATUS]} Status
 * @typedef {object} WorkerState
 * @property {Status} status
 * @property {number | null} pid
 * @property {number | null} startedAt ms, when the current process was spawned
 * @property {number} restarts automatic and manual restarts, as PM2 counts them
 * @property {number} unstableRestarts consecutive exits before min_uptime
 * @property {number} backoff the last exponential backoff delay used (ms)
 * @property {number} crashLoops times in a row the worker was found crash-looping
 * @property {boolean} listening
 * @property {boolean} ready the app sent 'ready' (wait_ready) since it was spawned
 * @property {boolean} draining stopping, but first draining its connections (reload, scale down)
 * @property {number} lingering how many long-lived connections (WebSocket, Server-Sent Events) its
 *   drain has left, as the agent said; 0 until it says so
 * @property {boolean} probeReady its readiness probe passes now (docs/probes.md); false without one
 * @property {number} livenessRestarts restarts because its liveness probe failed
 * @property {{ reason: string, at: number } | null} lastRestart why sup last restarted it on its own decision (a failed liveness probe)
 * @property {{ code: number | null, signal: string | null, at: number, reason?: string } | null} lastExit
 *   reason: why, when known: the process could not be started, or it said why it failed to start
 * @property {number | null} retryAt when a waiting/errored worker will be started again
 * @property {'start' | 'remove' | null} afterStop what follows once it has stopped
 * @property {boolean} held stopped on purpose (`sup stop`, autostart: false, a dependency not
 *   ready): cron_restart and watch leave it alone until a start or restart lifts the hold
 *
 * @typedef {{ type: 'start' }
 *   | { type: 'spawned', pid: number }
 *   | { type: 'listening' }
 *   | { type: 'ready' }
 *   | { type: 'exit', code: number | null, signal: string | null, failed?: SpawnFailure, cause?: string }
 *   | { type: 'stop', afterStop?: 'start' | 'remove' | null, drain?: boolean, hold?: boolean }
 *   | { type: 'hold' }
 *   | { type: 'drained' }
 *   | { type: 'lingering', connections: number }
 *   | { type: 'shut-down' }
 *   | { type: 'timer', name: TimerName }
 *   | { type: 'reset' }
 *   | { type: 'carry-restarts', restarts: number }
 *   | { type: 'probe', kind: 'readiness' | 'liveness', passing: boolean, reason?: string | null }} WorkerEvent
 *
 * @typedef {{ code: string | null, message: string, permanent: boolean }} SpawnFailure the process could not be
 *   started at all (E2BIG, EACCES, ENOENT, EMFILE, ...); permanent: a retry in a moment cannot fix it
 * @typedef {'ready' | 'kill' | 'retry' | 'drain'} TimerName
 * @typedef {{ type: 'spawn' }
 *   | { type: 'graceful-stop' }
 *   | { type: 'drain', idleMs: number }
 *   | { type: 'kill-tree' }
 *   | { type: 'reap-orphans' }
 *   | { type: 'remove' }
 *   | { type: 'set-timer', name: TimerName, ms: number }
 *   | { type: 'clear-timer', name: TimerName }
 *   | EventEffect} Effect
 * @typedef {{ type: 'event', kind: string, level: 'info' | 'warn' | 'error', message: string, data?: Record<string, unknown> }} EventEffect
 *   a decision and its reason, for `sup events`, the app's log stream and the daemon log
 *
 * @typedef {import('./restart-policy.js').PolicyConfig &
 *   Pick<import('../../ipc/app-config.js').AppConfig, 'wait_ready' | 'listen_timeout' | 'kill_timeout'> &
 *   Partial<Pick<import('../../ipc/app-config.js').AppConfig, 'readiness'>>} LifecycleConfig
 */

/** @returns {WorkerState} */
export function initialState () {
  return {
    status: STATUS.STOPPED,
    pid: null,
    startedAt: null,
    restarts: 0,
    unstableRestarts: 0,
    backoff: 0,
    crashLoops: 0,
    listening: false,
    ready: false,
    draining: false,
    lingering: 0,
    probeReady: false,
    livenessRestarts: 0,
    lastRestart: null,
    lastExit: null,
    retryAt: null,
    afterStop: null,
    held: false
  }
}

/**
 * @param {LifecycleConfig} config
 * @param {WorkerState} state
 * @param {WorkerEvent} event
 * @param {number} now ms
 * @returns {{ state: WorkerState, effects: Effect[] }}
 */
export function transition (config, state, event, now) {
  const handler = HANDLERS[event.type]
  return handler(config, state, /** @type {any} */ (event), now) ?? { state, effects: [] }
}

/** @type {{ [K in WorkerEvent['type']]: (c: LifecycleConfig, s: WorkerState, e: Extract<WorkerEvent, { type: K }>, now: number) => ({ state: WorkerState, effects: Effect[] } | undefined) }} */
const HANDLERS = {
  // A start lifts a hold, whatever the status.
  start (config, state) {
    if (state.status === STATUS.STOPPING) return { state: { ...state, afterStop: 'start', held: false }, effects: [] }
    if (state.status === STATUS.STARTING || state.status === STATUS.ONLINE) return state.held ? { state: { ...state, held: false }, effects: [] } : undefined
    return spawn(state, state.status === STATUS.STOPPED ? state.restarts : state.restarts + 1)
  },

  // Kept from starting (autostart: false, a dependency not ready): stopped as `sup stop` leaves it.
  hold (config, state) {
    return state.held ? undefined : { state: { ...state, held: true }, effects: [] }
  },

  spawned (config, state, event, now) {
    if (state.status !== STATUS.STARTING) return undefined
    // With a readiness probe, only the probe makes the worker online (no timeout says "ready").
    if (config.readiness) return { state: { ...state, pid: event.pid, startedAt: now, listening: false }, effects: [] }
    // Apps that never listen count as online once they have survived min_uptime;
    // with wait_ready only the app's own 'ready' (or the listen timeout) will do.
    const ms = config.wait_ready ? config.listen_timeout : config.min_uptime
    return {
      state: { ...state, pid: event.pid, startedAt: now, listening: false },
      effects: [{ type: 'set-timer', name: 'ready', ms }]
    }
  },

  listening (config, state) {
    if (state.status === STATUS.STARTING && !config.wait_ready && !config.readiness) return online({ ...state, listening: true })
    return { state: { ...state, listening: true }, effects: [] }
  },

  ready (config, state) {
    if (state.status === STATUS.ONLINE) return { state: { ...state, ready: true }, effects: [] }
    if (state.status !== STATUS.STARTING) return undefined
    if (config.readiness && !state.probeReady) return { state: { ...state, ready: true }, effects: [] }
    return online({ ...state, ready: true })
  },

  probe (config, state, event, now) {
    if (event.kind === 'readiness') {
      const next = { ...state, probeReady: event.passing }
      if (state.status === STATUS.STARTING && state.pid !== null && event.passing && (!config.wait_ready || state.ready)) return online(next)
      return { state: next, effects: [] }
    }
    // Liveness: a worker that is up (or on its way) and stopped answering is restarted, as a
    // kubelet restarts the container: the stop ladder (a hung process gets SIGKILL after
    // kill_timeout), then a new process.
    if (event.passing || (state.status !== STATUS.STARTING && state.status !== STATUS.ONLINE)) return undefined
    const reason = `liveness probe failed: ${event.reason ?? 'no answer'}`
    return {
      state: { ...state, status: STATUS.STOPPING, afterStop: 'start', livenessRestarts: state.livenessRestarts + 1, lastRestart: { reason, at: now } },
      effects: [{ type: 'event', kind: 'liveness', level: 'warn', message: `${reason}; restarting it`, data: { reason: event.reason ?? null } }, { type: 'clear-timer', name: 'ready' }, { type: 'graceful-stop' }, { type: 'set-timer', name: 'kill', ms: config.kill_timeout }]
    }
  },

  exit (config, state, event, now) {
    // failed: it never started; cause: what its last words said (a port in use, diagnose.js)
    const reason = event.failed ? `could not start: ${event.failed.message}` : event.cause ?? null
    const exited = { ...state, pid: null, listening: false, ready: false, probeReady: false, draining: false, lingering: 0, lastExit: { code: event.code, signal: event.signal, at: now, ...(reason ? { reason } : {}) } }
    const cleanup = /** @type {Effect[]} */ ([{ type: 'clear-timer', name: 'ready' }, { type: 'clear-timer', name: 'kill' }, { type: 'reap-orphans' }])
    if (state.draining) cleanup.unshift({ type: 'clear-timer', name: 'drain' })
    const how = event.signal ? `signal ${event.signal}` : `code ${event.code}`
    const exit = { code: event.code, signal: event.signal, uptime: state.startedAt === null ? 0 : now - state.startedAt }
    if (state.status === STATUS.STOPPING) {
      const next = state.afterStop === 'start' ? 'starting it again' : state.afterStop === 'remove' ? 'removing it' : 'stopped'
      return afterStopped(exited, [...cleanup, { type: 'event', kind: 'exited', level: 'info', message: `exited with ${how} when asked to stop; ${next}`, data: exit }])
    }
    if (state.status !== STATUS.STARTING && state.status !== STATUS.ONLINE) return { state: exited, effects: cleanup }

    if (event.failed?.permanent && config.autorestart) {
      // Not in a tight loop: the half-open retry of a crash loop, which gives the user time to
      // fix the file, its mode or the environment (sup restart tries again at once).
      const delay = crashLoopRetryDelay(state.crashLoops)
      const next = { ...exited, status: STATUS.ERRORED, crashLoops: state.crashLoops + 1, retryAt: now + delay }
      return {
        state: next,
        effects: [...cleanup, { type: 'event', kind: 'spawn-error', level: 'error', message: `${reason}; not retried in a loop: trying again in ${delay} ms`, data: { error: event.failed.code, delay, retry_at: next.retryAt } }, { type: 'set-timer', name: 'retry', ms: delay }]
      }
    }
    const decision = decideAfterExit(config, state, event, now)
    if (decision.action === 'stop') {
      return {
        state: { ...exited, status: STATUS.STOPPED },
        effects: [...cleanup, { type: 'event', kind: 'not-restarting', level: 'info', message: `exited with ${how}; not restarting: ${decision.reason}`, data: { ...exit, reason: decision.reason } }]
      }
    }
    const status = decision.action === 'errored' ? STATUS.ERRORED : STATUS.WAITING
    const next = {
      ...exited,
      status,
      unstableRestarts: decision.unstableRestarts,
      crashLoops: decision.crashLoops,
      backoff: decision.action === 'restart' ? decision.backoff : state.backoff,
      retryAt: now + decision.delay
    }
    const errored = decision.action === 'errored'
    const because = reason ? ` (${reason})` : ''
    const message = errored
      ? `exited with ${how}${because}; crash loop (${decision.unstableRestarts} exits within min_uptime ${config.min_uptime} ms), retrying in ${decision.delay} ms`
      : `exited with ${how}${because}; restarting in ${decision.delay} ms`
    const data = { ...exit, delay: decision.delay, retry_at: next.retryAt, unstable_restarts: decision.unstableRestarts, attempt: state.restarts + 1 }
    return {
      state: next,
      effects: [...cleanup, { type: 'event', kind: errored ? 'crash-loop' : 'restarting', level: errored ? 'error' : 'warn', message, data }, { type: 'set-timer', name: 'retry', ms: decision.delay }]
    }
  },

  stop (config, state, event) {
    const afterStop = event.afterStop ?? null
    // `sup stop` holds the worker; a restart (stop, then start) lifts the hold.
    const held = afterStop === 'start' ? false : state.held || Boolean(event.hold)
    state = held === state.held ? state : { ...state, held }
    // Only a worker that listens can have connections to drain (a starting one that listens
    // may be gated, still receiving hand-offs it declines); the stop ladder follows once it
    // reports drained, or after kill_timeout.
    if (event.drain && (state.status === STATUS.ONLINE || (state.status === STATUS.STARTING && state.listening))) {
      return {
        state: { ...state, status: STATUS.STOPPING, afterStop, draining: true },
        effects: [{ type: 'clear-timer', name: 'ready' }, { type: 'drain', idleMs: drainIdleMs(config) }, { type: 'set-timer', name: 'drain', ms: config.kill_timeout }]
      }
    }
    switch (state.status) {
      case STATUS.STARTING:
      case STATUS.ONLINE:
        return {
          state: { ...state, status: STATUS.STOPPING, afterStop },
          effects: [{ type: 'clear-timer', name: 'ready' }, { type: 'graceful-stop' }, { type: 'set-timer', name: 'kill', ms: config.kill_timeout }]
        }
      case STATUS.STOPPING:
        // The latest request wins (a plain stop cancels a pending restart), except that a
        // pending delete is never undone.
        return { state: { ...state, afterStop: state.afterStop === 'remove' ? 'remove' : afterStop }, effects: [] }
      default:
        return afterStopped({ ...state, afterStop, retryAt: null }, [{ type: 'clear-timer', name: 'retry' }])
    }
  },

  drained (config, state) {
    if (state.status !== STATUS.STOPPING || !state.draining) return undefined
    return stopAfterDrain(config, state, [])
  },

  // Its drain has left only long-lived connections: noted; the rollout decides (step.js).
  lingering (config, state, event) {
    if (state.status !== STATUS.STOPPING || !state.draining) return undefined
    return { state: { ...state, lingering: event.connections }, effects: [] }
  },

  // Told to go before its drain ends (its long-lived connections end only when the app closes
  // them): the stop ladder now, and kill_timeout from here.
  'shut-down' (config, state) {
    if (state.status !== STATUS.STOPPING || !state.draining) return undefined
    const n = state.lingering
    const message = `${n} long-lived connection${n === 1 ? '' : 's'} (WebSocket, Server-Sent Events) left after the drain; telling the app to shut down now (kill_timeout ${config.kill_timeout} ms)`
    return stopAfterDrain(config, state, [{ type: 'event', kind: 'lingering', level: 'info', message, data: { connections: n, kill_timeout: config.kill_timeout } }])
  },

  timer (config, state, event) {
    if (event.name === 'drain' && state.status === STATUS.STOPPING && state.draining) {
      return stopAfterDrain(config, state, [{ type: 'event', kind: 'drain-timeout', level: 'warn', message: `connections still open after kill_timeout (${config.kill_timeout} ms) of draining; stopping it anyway`, data: { kill_timeout: config.kill_timeout } }])
    }
    if (event.name === 'ready' && state.status === STATUS.STARTING) {
      const result = online(state)
      if (config.wait_ready) {
        result.effects.push({ type: 'event', kind: 'ready-timeout', level: 'warn', message: `no "ready" message within listen_timeout (${config.listen_timeout} ms); counting it as online`, data: { listen_timeout: config.listen_timeout } })
      }
      return result
    }
    if (event.name === 'kill' && state.status === STATUS.STOPPING) {
      return { state, effects: [{ type: 'event', kind: 'killed', level: 'warn', message: `still running after kill_timeout (${config.kill_timeout} ms); sending SIGKILL`, data: { kill_timeout: config.kill_timeout } }, { type: 'kill-tree' }] }
    }
    if (event.name === 'retry' && (state.status === STATUS.WAITING || state.status === STATUS.ERRORED)) {
      return spawn(state, state.restarts + 1)
    }
    return undefined
  },

  reset (config, state) {
    return { state: { ...state, restarts: 0, unstableRestarts: 0, backoff: 0, crashLoops: 0, livenessRestarts: 0 }, effects: [] }
  },

  // A worker that took over from another (a graceful replace) continues its restart count.
  'carry-restarts' (config, state, event) {
    return { state: { ...state, restarts: event.restarts }, effects: [] }
  }
}

/**
 * @param {WorkerState} state
 * @param {number} restarts
 * @returns {{ state: WorkerState, effects: Effect[] }}
 */
function spawn (state, restarts) {
  return {
    // startedAt is cleared: a spawn that fails before 'spawned' must count as a fast exit.
    state: { ...state, status: STATUS.STARTING, startedAt: null, restarts, retryAt: null, afterStop: null, held: false, ready: false, probeReady: false, draining: false, lingering: 0 },
    effects: [{ type: 'clear-timer', name: 'retry' }, { type: 'spawn' }]
  }
}

/**
 * How long a draining worker lets a keep-alive connection sit idle before closing it: long
 * enough that a client using it has sent its next request (which then gets Connection:
 * close), short enough to finish well within kill_timeout.
 * @param {LifecycleConfig} config
 */
export function drainIdleMs (config) {
  return Math.max(1, Math.min(DRAIN_IDLE_MS, Math.floor(config.kill_timeout / 2)))
}

/** Upper bound of drainIdleMs (ms). */
export const DRAIN_IDLE_MS = 1000

/**
 * Drained (or out of time): on to the usual stop ladder.
 * @param {LifecycleConfig} config
 * @param {WorkerState} state
 * @param {Effect[]} effects
 * @returns {{ state: WorkerState, effects: Effect[] }}
 */
function stopAfterDrain (config, state, effects) {
  return {
    state: { ...state, draining: false },
    effects: [...effects, { type: 'clear-timer', name: 'drain' }, { type: 'graceful-stop' }, { type: 'set-timer', name: 'kill', ms: config.kill_timeout }]
  }
}

/** @param {WorkerState} state */
function online (state) {
  return {
    state: { ...state, status: STATUS.ONLINE },
    effects: /** @type {Effect[]} */ ([{ type: 'clear-timer', name: 'ready' }])
  }
}

/**
 * The worker is down on purpose: start it again, remove it, or leave it stopped.
 * @param {WorkerState} state
 * @param {Effect[]} effects
 * @returns {{ state: WorkerState, effects: Effect[] }}
 */
function afterStopped (state, effects) {
  if (state.afterStop === 'start') {
    const next = spawn({ ...state, status: STATUS.STOPPED }, state.restarts + 1)
    return { state: next.state, effects: [...effects, ...next.effects] }
  }
  if (state.afterStop === 'remove') return { state: { ...state, status: STATUS.STOPPED, afterStop: null }, effects: [...effects, { type: 'remove' }] }
  return { state: { ...state, status: STATUS.STOPPED, afterStop: null }, effects }
}
