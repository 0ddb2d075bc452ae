// @ts-check
// Fakes for daemon/worker/effects.js: a clock whose timers fire only when the test advances it,
// worker processes that exit, listen and answer only when told to, and a process tree that
// records the signals sent to it. Unit tests of Worker, App, rollout and reload run on them.
import { EventEmitter } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { APP_DEFAULTS } from '../../ipc/app-config.js'
import { runtimeResolver } from '../../daemon/node-runtime/resolve.js'
import { settle } from './wait.js'

/**
 * What a process does in answer to the daemon (exit on a signal, listen once it runs) reaches
 * the daemon as I/O: in a later turn of the event loop, never within the current one.
 * @param {() => void} fn
 */
export const soon = (fn) => { setImmediate(fn) }

/**
 * @typedef {{ at: number, seq: number, fn: () => void }} FakeTimer
 */

/** A clock that moves only when `advance` is called; its timers fire in order as it passes them. */
export function fakeClock (start = 1_700_000_000_000) {
  let now = start
  let seq = 0
  /** @type {Set<FakeTimer>} */
  const pending = new Set()
  return {
    now: () => now,
    timers: {
      /** @param {() => void} fn @param {number} ms */
      setTimeout (fn, ms) {
        const timer = { at: now + Math.max(0, ms), seq: seq++, fn }
        pending.add(timer)
        return timer
      },
      /** @param {any} timer */
      clearTimeout (timer) { pending.delete(timer) }
    },
    /** How many timers are set, and when the next one fires (ms from now). */
    pending () {
      const next = [...pending].reduce((min, t) => Math.min(min, t.at), Infinity)
      return { count: pending.size, next: next - now }
    },
    /**
     * Move the clock on by `ms`, firing every timer due on the way, each at its own time, and
     * letting what it starts (callbacks, promises, file I/O: see settle) finish before the next.
     * @param {number} ms
     */
    async advance (ms) {
      const end = now + ms
      await settle()
      while (true) {
        const due = [...pending].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0]
        if (!due) break
        pending.delete(due)
        now = due.at
        due.fn()
        await settle()
      }
      now = end
      await settle()
    }
  }
}

/** A worker process as the Worker sees it (SpawnedWorker), moved by the test. */
export class FakeProcess {
  /**
   * @param {number | undefined} pid undefined: the spawn failed
   * @param {import('../../ipc/app-config.js').AppConfig} config
   * @param {Record<string, string>} env
   */
  constructor (pid, config, env) {
    /** @type {(message: unknown) => void} what the process does with a message (set by fakeEffects) */
    this.onMessage = () => {}
    this.pid = pid
    this.config = config
    this.env = env
    this.ownGroup = config.exec_mode !== 'cluster'
    /** @type {import('node:stream').Readable | null} */
    this.stdout = null
    /** @type {import('node:stream').Readable | null} */
    this.stderr = null
    this.events = new EventEmitter()
    /** @type {unknown[]} messages the daemon sent it */
    this.sent = []
    this.exited = false
  }

  /** @param {unknown} message */
  send (message) {
    this.sent.push(message)
    this.onMessage(message)
  }

  /** @param {number | null} code @param {string | null} [signal] */
  exit (code, signal = null) {
    if (this.exited) return
    this.exited = true
    this.events.emit('exit', code, signal)
  }

  listen () { this.events.emit('listening') }
  ready () { this.events.emit('ready') }
  drained () { this.events.emit('drained') }

  /** The agent's acts the daemon asked for (drain, gate, open). */
  acts () {
    return this.sent.filter((m) => typeof m === 'object' && m !== null && 'act' in m).map((m) => /** @type {any} */ (m).act)
  }
}

/**
 * Effects for tests: fake spawn, clock, timers and process tree.
 * @param {{ balance?: 'rr' | 'os', onSpawn?: (proc: FakeProcess) => void, onSignal?: (proc: FakeProcess, signal: NodeJS.Signals) => void, onMessage?: (proc: FakeProcess, message: unknown) => void, failSpawn?: boolean, onCheck?: (target: import('../../ipc/app-config.js').ProbeConfig, context: { cwd: string, env: Record<string, string> }) => Promise<import('../../daemon/probes/probe.js').CheckResult> }} [options]
 *   onSpawn: script what the new process does (listen at once, crash, ...); onSignal: what a
 *   process does when signalled (by default nothing: it ignores SIGINT, dies of SIGKILL);
 *   onMessage: what it does with a message from the daemon ('shutdown', the agent's acts);
 *   onCheck: the answer to a probe's check made from the daemon (by default it passes)
 */
export function fakeEffects ({ balance = 'rr', onSpawn = () => {}, onSignal, onMessage, failSpawn = false, onCheck = async () => ({ ok: true }) } = {}) {
  const clock = fakeClock()
  let nextPid = 1000
  /** @type {FakeProcess[]} */
  const spawned = []
  /** @type {Array<[number, NodeJS.Signals]>} */
  const signals = []
  const byPid = (/** @type {number} */ pid) => spawned.find((p) => p.pid === Math.abs(pid) && !p.exited)
  const runtime = runtimeResolver()
  /** @type {import('../../daemon/worker/effects.js').Effects & { clock: typeof clock, spawned: FakeProcess[], signals: typeof signals }} */
  const effects = {
    clock,
    spawned,
    signals,
    now: clock.now,
    timers: clock.timers,
    balance: () => balance,
    check: (target, context) => () => onCheck(/** @type {any} */ (target), context),
    // The fake apps' files do not exist: only the node they ask for is looked up, as the daemon does.
    prepare: (config, env) => runtime.prepare(config, env),
    preflight: (config, env) => { runtime(config, env) },
    runtime,
    spawn (config, env) {
      const proc = new FakeProcess(failSpawn ? undefined : nextPid++, config, env)
      spawned.push(proc)
      if (onMessage) proc.onMessage = (message) => onMessage(proc, message)
      if (failSpawn) soon(() => proc.exit(127))
      else onSpawn(proc)
      return proc
    },
    tree: {
      list: async () => [],
      signal (pid, signal) {
        signals.push([pid, signal])
        const proc = byPid(pid)
        if (!proc) return false
        // The worker reacts to a signal to it or to its group (whose leader it is); SIGKILL
        // to the worker always kills.
        if (pid > 0 && signal === 'SIGKILL') soon(() => proc.exit(null, 'SIGKILL'))
        else if (signal !== 'SIGKILL') onSignal?.(proc, signal)
        return true
      },
      signalRecorded: async () => 0,
      marked: async () => [],
      read: async () => null
    }
  }
  return effects
}

/**
 * A config as the daemon holds it: the defaults, then `overrides`.
 * @param {Partial<import('../../ipc/app-config.js').AppConfig>} [overrides]
 * @returns {import('../../ipc/app-config.js').AppConfig}
 */
export function appConfig (overrides = {}) {
  return Object.freeze(/** @type {import('../../ipc/app-config.js').AppConfig} */ ({
    ...APP_DEFAULTS,
    name: 'api',
    script: '/srv/api/server.js',
    cwd: '/srv/api',
    exec_mode: 'cluster',
    instances: 2,
    ...overrides
  }))
}

export const silentLogger = pino({ level: 'silent' })

/**
 * A temporary logs folder, removed after the test.
 * @param {import('node:test').TestContext} t
 */
export function tempLogs (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-unit-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * A well-behaved node worker: listens as soon as it runs, reports drained when asked to drain,
 * exits on SIGINT or 'shutdown'. Pass its parts to fakeEffects.
 */
export const cooperative = Object.freeze({
  onSpawn: (/** @type {FakeProcess} */ proc) => soon(() => proc.listen()),
  onSignal: (/** @type {FakeProcess} */ proc, /** @type {NodeJS.Signals} */ signal) => { if (signal === 'SIGINT') soon(() => proc.exit(0)) },
  onMessage: (/** @type {FakeProcess} */ proc, /** @type {unknown} */ message) => {
    if (message === 'shutdown') soon(() => proc.exit(0))
    else if (/** @type {any} */ (message)?.act === 'drain') soon(() => proc.drained())
  }
})

/**
 * Advance the fake clock in 50 ms steps until the promise settles; fails past `limit` ms.
 * @template T
 * @param {{ clock: ReturnType<typeof fakeClock> }} effects
 * @param {Promise<T>} promise
 * @param {number} [limit]
 * @returns {Promise<T>}
 */
export async function drive (effects, promise, limit = 60_000) {
  const state = { settled: false }
  promise.then(() => { state.settled = true }, () => { state.settled = true })
  for (let ms = 0; ms <= limit; ms += 50) {
    if (state.settled) return promise
    await effects.clock.advance(50)
  }
  if (!state.settled) throw new Error(`not settled within ${limit} ms of fake time`)
  return promise
}
