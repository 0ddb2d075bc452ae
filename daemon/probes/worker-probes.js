// @ts-check
// An app's readiness and liveness probes, run for each process of each worker
// (docs/probes.md). The verdicts become lifecycle events ('probe'): readiness makes a starting
// worker online, liveness failing restarts it. In cluster mode under round-robin, a worker
// whose readiness fails is gated (the primary hands its connections to the others) while
// another worker serves.
import { STATUS } from '../worker/lifecycle.js'
import { runProbe } from './probe.js'

/**
 * @typedef {import('../worker/worker.js').Worker} Worker
 * @typedef {import('../../ipc/app-config.js').ProbeConfig} ProbeConfig
 * @typedef {import('./probe.js').CheckResult} CheckResult
 * @typedef {import('./probe.js').ProbeState} ProbeState
 * @typedef {import('./probe.js').ProbeKind} ProbeKind
 *
 * @typedef {object} WorkerProbes what a worker shows of its probes (describe, ls --json)
 * @property {ProbeState | null} readiness
 * @property {ProbeState | null} liveness
 *
 * @typedef {{ get: (worker: Worker) => WorkerProbes, set: (worker: Worker, probes: WorkerProbes) => void, clear: (worker: Worker) => void }} ProbeStore
 */

const KINDS = /** @type {const} */ (['readiness', 'liveness'])

/**
 * Run the probes of every process the worker gets, until it stops or exits. Readiness starts
 * with the process (it decides when the worker is online); liveness once the worker is online,
 * so that a slow start is not taken for a hang (the job of Kubernetes' startupProbe): its
 * initial_delay counts from then. The verdicts are kept in `verdicts`, this function their one writer.
 * @param {Worker} worker
 * @param {ProbeStore} verdicts
 */
export function probeWorker (worker, verdicts) {
  let seq = 0
  const nextSeq = () => ++seq
  /** @type {Map<ProbeKind, { pid: number, stop: () => void, poke: () => void }>} */
  const running = new Map()
  const stopAll = () => {
    for (const runner of running.values()) runner.stop()
    running.clear()
  }
  const follow = () => {
    const { pid, status } = worker.state
    const alive = pid !== null && (status === STATUS.STARTING || status === STATUS.ONLINE)
    for (const [kind, runner] of running) {
      if (alive && runner.pid === pid) continue
      runner.stop()
      running.delete(kind)
    }
    if (!alive || pid === null) return
    // A starting worker that has just listened is likely ready: check now, not a period later.
    if (status === STATUS.STARTING && worker.state.listening) running.get('readiness')?.poke()
    if (running.size === 0) verdicts.clear(worker)
    for (const kind of KINDS) {
      const probe = worker.config[kind]
      if (!probe || running.has(kind) || (kind === 'liveness' && status !== STATUS.ONLINE)) continue
      running.set(kind, start(worker, pid, kind, probe, verdicts, nextSeq))
    }
  }
  worker.on('change', follow)
  worker.on('remove', stopAll)
}

/**
 * @param {Worker} worker
 * @param {number} pid
 * @param {ProbeKind} kind
 * @param {ProbeConfig} probe
 * @param {ProbeStore} verdicts
 * @param {() => number} nextSeq numbers the checks asked of the agent
 */
function start (worker, pid, kind, probe, verdicts, nextSeq) {
  const runner = runProbe({
    kind,
    timing: probe,
    check: checkOf(worker, probe, nextSeq),
    timers: worker.effects.timers,
    now: worker.effects.now,
    onResult: (state, changed) => {
      if (worker.state.pid !== pid) return
      verdicts.set(worker, { ...verdicts.get(worker), [kind]: state })
      if (changed) worker.dispatch({ type: 'probe', kind, passing: state.passing, reason: state.last })
    }
  })
  return { pid, stop: () => runner.stop(), poke: () => runner.poke() }
}

/**
 * How a probe reaches this worker. A command runs from the daemon. An http or tcp check goes
 * through sup's agent when the worker shares its port with others (cluster mode, or a node app
 * on sockets the daemon holds): a connection to the port could land on any of them. Otherwise
 * the daemon connects itself, to the probe's port or the worker's own (its env PORT, after
 * increment_var, or the app's first `listen` port).
 * @param {Worker} worker
 * @param {ProbeConfig} probe
 * @param {() => number} nextSeq numbers the checks asked of the agent
 * @returns {(signal: AbortSignal) => Promise<CheckResult>}
 */
export function checkOf (worker, probe, nextSeq) {
  const { config } = worker
  const env = worker.env()
  if (probe.type === 'exec') return worker.effects.check(probe, { cwd: config.cwd, env })
  if (sharesPort(worker)) return (signal) => askAgent(worker, probe, signal, nextSeq())
  const port = probe.port ?? portOf(env.PORT) ?? portOf(config.listen[0])
  if (port === null) {
    return async () => ({ ok: false, reason: `no port to ${probe.type === 'http' ? 'GET' : 'connect to'} (give the probe a port, or the app env PORT)` })
  }
  return worker.effects.check({ ...probe, port }, { cwd: config.cwd, env })
}

/** @param {Worker} worker */
function sharesPort (worker) {
  const { config, sockets } = worker
  return config.exec_mode === 'cluster' || (sockets != null && config.listen.length > 0 && config.interpreter === null)
}

/** @param {string | undefined} value @returns {number | null} */
function portOf (value) {
  const port = Number(value)
  return value !== undefined && Number.isInteger(port) && port > 0 && port < 65536 ? port : null
}

/**
 * One check through the agent of the worker's current process ('probe', answered by 'probed').
 * @param {Worker} worker
 * @param {ProbeConfig} probe
 * @param {AbortSignal} signal
 * @param {number} id pairs the answer with the question
 * @returns {Promise<CheckResult>}
 */
function askAgent (worker, probe, signal, id) {
  const proc = worker.proc
  if (proc === null) return Promise.resolve({ ok: false, reason: 'the worker has no process' })
  return new Promise((resolve) => {
    const onProbed = (/** @type {any} */ message) => {
      if (message?.seq !== id) return
      done()
      resolve(judge(probe, message))
    }
    const done = () => {
      proc.events.off('probed', onProbed)
      signal.removeEventListener('abort', onAbort)
    }
    // The runner has already counted the check as timed out.
    const onAbort = () => done()
    proc.events.on('probed', onProbed)
    signal.addEventListener('abort', onAbort, { once: true })
    worker.tellAgent('probe', { seq: id, type: probe.type, port: probe.port, path: probe.path })
  })
}

/**
 * The agent's answer as a verdict: an http status as worker/checks.js judges one.
 * @param {ProbeConfig} probe
 * @param {{ status?: unknown, error?: unknown }} answer
 * @returns {CheckResult}
 */
export function judge (probe, { status, error }) {
  if (typeof error === 'string') return { ok: false, reason: error }
  if (probe.type !== 'http') return { ok: true }
  const code = Number(status)
  const ok = probe.status === null ? code >= 200 && code < 400 : code === probe.status
  return ok ? { ok: true } : { ok: false, reason: `GET ${probe.path} answered ${code}${probe.status === null ? '' : `, expected ${probe.status}`}` }
}

/**
 * Under round-robin, keep the primary from handing connections to cluster workers whose
 * readiness probe does not pass, as long as another worker of the app serves (a gate on every
 * worker would only bounce each connection between them). Called whenever a worker changes.
 * @param {Worker[]} workers the app's
 * @param {'rr' | 'os'} balance
 * @param {{ get: (worker: Worker) => number | null, set: (worker: Worker, pid: number | null) => void }} gates the pid each worker's gate
 *   holds closed; this function is its one writer
 */
export function gateUnready (workers, balance, gates) {
  if (balance !== 'rr') return
  const serving = workers.filter((w) => w.state.status === STATUS.ONLINE && !w.state.draining && (!w.config.readiness || w.state.probeReady))
  for (const worker of workers) {
    const { state, config } = worker
    if (!config.readiness || config.exec_mode !== 'cluster' || state.pid === null || state.draining) continue
    if (state.status !== STATUS.STARTING && state.status !== STATUS.ONLINE) continue
    const gate = !state.probeReady && serving.some((w) => w !== worker)
    const gated = gates.get(worker) === state.pid
    if (gate === gated) continue
    gates.set(worker, gate ? state.pid : null)
    worker.tellAgent(gate ? 'gate' : 'open')
  }
}
