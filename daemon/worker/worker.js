// @ts-check
// One worker slot of an app: its id, instance, the revision it runs and its lifecycle state;
// it carries out the effects the pure transition table asks for (spawn, signals, timers), the
// only place that does so. What others know of it (figures, probe verdicts) is kept in their
// stores (app/worker-stores.js); its row in `sup ls` is a projection (app/worker-row.js).
import { randomBytes } from 'node:crypto'
import { EventEmitter } from 'node:events'
import { finished } from 'node:stream/promises'
import { diagnoseStart } from './diagnose.js'
import { APP_MESSAGES, toAgent } from '../../ipc/agent-protocol.js'
import { STATUS, initialState, isRunning, transition } from './lifecycle.js'
import { readAgentReport } from './agent-report.js'
import { realEffects } from './effects.js'
import { TOKEN_VAR } from './process-tree.js'
import { buildWorkerEnv, usesAgent } from './spawn.js'
import adapterRelay from '../relay/adapter-relay.cjs'

const { RELAY_LIMITS } = adapterRelay
const RELAY_BACKLOG_MIB = RELAY_LIMITS.backlogBytes / (1024 * 1024)

/**
 * @typedef {import('./revision.js').Revision} Revision
 * @typedef {Pick<import('../logs/sink.js').LogSink, 'attach' | 'ring'>} LogInlet where its output goes, and its last lines (why a start failed)
 */

/**
 * Errors of a spawn that a retry in a moment cannot fix: the file, its mode, the argument or
 * environment size, a value the kernel refuses. The others (EMFILE, ENFILE, EAGAIN, ENOMEM) may
 * pass, and are retried as a crash is.
 */
const TRANSIENT_SPAWN_ERRORS = new Set(['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM'])

/**
 * A spawn that failed, as the lifecycle takes it.
 * @param {Error} error
 * @returns {import('./lifecycle.js').SpawnFailure}
 */
export function describeSpawnError (error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code ?? null
  // Node's "spawn /path ENOENT" names the file; a SupError (no node found) is one line already.
  const message = String(error.message).split('\n')[0].slice(0, 500)
  return { code, message, permanent: !TRANSIENT_SPAWN_ERRORS.has(String(code)) }
}

/** How long a failed start's stderr gets to be read to its end before its cause is read (ms). */
const STDERR_END_MS = 300
/** How many of its last stderr lines are read for the cause. */
const DIAGNOSED_LINES = 40

/**
 * What made a starting worker online, in words.
 * @param {import('./lifecycle.js').WorkerState} state
 */
function why (state) {
  if (state.probeReady) return 'readiness probe passed'
  if (state.ready) return 'it said ready'
  if (state.listening) return 'listening'
  return 'up for min_uptime'
}

/**
 * Events: 'state' (its WorkerState, when the status or pid changed), 'change' (any change of
 * state), 'renumber' (id), 'remove', 'spawn' (a new process: what was known of the last is
 * stale), 'agent' (the agent's report, with `at`), 'event' (a decision and its reason),
 * 'message' (the app's own messages).
 */
export class Worker extends EventEmitter {
  /**
   * @param {{ id: number, instance: number, revision: Revision, logs: LogInlet, sockets?: import('../sockets/held-sockets.js').HeldSockets | null, logger: import('pino').Logger, effects?: import('./effects.js').Effects, agentEnv?: Record<string, string>, shutdownWithMessage?: boolean, siblings?: () => Worker[] }} options
   *   revision: the settings and environment it starts with;
   *   logs, sockets: its app's log sink and held sockets (`listen`), the same for every revision;
   *   effects: spawn, timers, clock and process tree (tests pass fakes);
   *   agentEnv: extra variables for node workers, read (and removed) by the agent;
   *   shutdownWithMessage: the daemon's setting, for node workers whatever their app's;
   *   siblings: the app's workers, whose node a cluster worker keeps (pinnedRuntime)
   */
  constructor ({ id, instance, revision, logs, sockets = null, logger, effects = realEffects(), agentEnv = {}, shutdownWithMessage = false, siblings = () => [] }) {
    super()
    this.siblings = siblings
    this.id = id
    this.instance = instance
    this.revision = revision
    this.logs = logs
    this.sockets = sockets
    this.effects = effects
    this.now = effects.now
    this.agentEnv = agentEnv
    this.shutdownWithMessage = shutdownWithMessage
    this.baseLogger = logger
    this.logger = logger.child({ app: revision.config.name, id, instance })
    this.state = initialState()
    /** @type {import('./spawn.js').SpawnedWorker | null} */
    this.proc = null
    /** @type {Map<string, unknown>} */
    this.timers = new Map()
    /** Descendants recorded when a stop began, killed if they outlive the worker. */
    /** @type {import('./process-tree.js').ProcInfo[]} */
    this.tree = []
    /** @type {Set<Promise<void>>} reaps under way (reapOrphans) */
    this.reaping = new Set()
    /** @type {Promise<string | null>} that process's start time (ticks since boot), when known */
    this.startTime = Promise.resolve(null)
    /** @type {string | null} the SUP_WORKER_TOKEN of the process last started */
    this.token = null
    /** @type {import('./lifecycle.js').WorkerEvent[]} */
    this.queue = []
    this.dispatching = false
    /** True once the worker has left its app (the 'remove' effect ran). */
    this.removed = false
    /** What the process last started runs on (docs/config.md#interpreter); null for other interpreters. */
    /** @type {import('../node-runtime/resolve.js').Runtime | null} */
    this.runtime = null
  }

  /** The cgroup of the process it runs, where it has one (read by the sampler). */
  get cgroup () {
    return this.proc?.cgroup ?? null
  }

  /** @returns {import('../../ipc/app-config.js').AppConfig} the settings of the revision it runs */
  get config () {
    return this.revision.config
  }

  /**
   * Run `revision` from the next start on (a restart or reload with new settings).
   * @param {Revision} revision
   */
  adopt (revision) {
    this.revision = revision
  }

  /**
   * Feed an event to the lifecycle. Events raised while effects run are queued, so every
   * transition sees the state the previous one left.
   * @param {import('./lifecycle.js').WorkerEvent} event
   */
  dispatch (event) {
    this.queue.push(event)
    if (this.dispatching) return
    this.dispatching = true
    try {
      while (this.queue.length > 0) {
        const next = /** @type {import('./lifecycle.js').WorkerEvent} */ (this.queue.shift())
        const before = this.state
        const { state, effects } = transition(this.revision.config, before, next, this.now())
        this.state = state
        // Removal last, once the state it leaves was told: the app's 'deleted' row is the last
        // word on a worker, never followed by its 'stopped' (docs/protocol.md, app.state).
        const removal = effects.find((effect) => effect.type === 'remove')
        for (const effect of effects) if (effect !== removal) this.run(effect)
        if (state.status === STATUS.ONLINE && before.status === STATUS.STARTING) this.report({ kind: 'online', level: 'info', message: `online (pid ${state.pid}, ${why(state)})`, data: { pid: state.pid } })
        if (!this.removed && (state.status !== before.status || state.pid !== before.pid)) this.emit('state', state)
        // Any change at all, for those who wait on more than status (listening, ready).
        if (state !== before) this.emit('change', state)
        if (removal) this.run(removal)
      }
    } finally {
      this.dispatching = false
    }
  }

  /** @param {import('./lifecycle.js').Effect} effect */
  run (effect) {
    switch (effect.type) {
      case 'spawn': this.spawn(); break
      // The async ones report their own failures; the lifecycle moves on through events.
      case 'graceful-stop': this.stopGracefully(this.proc); break
      case 'kill-tree': this.killTree(this.proc); break
      case 'reap-orphans': this.reapOrphans(this.proc, this.token, this.startTime); break
      case 'drain': this.tellAgent('drain', { idleMs: effect.idleMs }); break
      case 'remove':
        this.removed = true
        this.emit('remove')
        break
      case 'set-timer': this.setTimer(effect.name, effect.ms); break
      case 'clear-timer': this.clearTimer(effect.name); break
      case 'event': this.report(effect); break
    }
  }

  /**
   * A decision about this worker and its reason: to the daemon log, and as an 'event' for the
   * journal (sup events) and the app's log stream.
   * @param {Omit<import('./lifecycle.js').EventEffect, 'type'>} event
   */
  report ({ kind, level, message, data = {} }) {
    this.logger[level]({ kind, ...data }, message)
    this.emit('event', { kind, level, app: this.config.name, id: this.id, instance: this.instance, message, data })
  }

  spawn () {
    const { config } = this.revision
    const { logs } = this
    // Unique per process started: what it leaves behind is found by it (reapOrphans).
    this.token = `${process.pid}.${this.id}.${randomBytes(8).toString('hex')}`
    const env = { ...this.env(), [TOKEN_VAR]: this.token }
    const proc = this.trySpawn(config, usesAgent(config) ? { ...env, ...this.agentEnv } : env)
    this.proc = proc
    this.emit('spawn')
    logs.attach(proc.stdout, this.logSource('out'))
    logs.attach(proc.stderr, this.logSource('err'))
    // Events of a process we have already replaced are stale and dropped.
    const current = () => this.proc === proc
    proc.events.on('exit', (code, signal, error) => {
      if (!current()) return
      if (error) return this.dispatch({ type: 'exit', code, signal, failed: describeSpawnError(error) })
      // Killed by the kernel at its cgroup's max_memory: the event, and the restart says why.
      const oom = signal === 'SIGKILL' ? proc.cgroup?.oomCause() ?? null : null
      if (oom) {
        this.report({ kind: 'oom', level: 'warn', message: oom, data: { limit: this.config.max_memory } })
        return this.dispatch({ type: 'exit', code, signal, cause: oom })
      }
      // A process that never came online and failed: its last words say why (a port in use),
      // read once its stderr is in (bounded), so the exit's event and row carry the cause.
      if (code === 0 || this.state.status !== STATUS.STARTING || !proc.stderr) return this.dispatch({ type: 'exit', code, signal })
      this.causeOfExit(proc).then((cause) => { if (current()) this.dispatch({ type: 'exit', code, signal, ...(cause ? { cause } : {}) }) })
    })
    proc.events.on('listening', () => { if (current()) this.dispatch({ type: 'listening' }) })
    proc.events.on('ready', () => { if (current()) this.dispatch({ type: 'ready' }) })
    proc.events.on('drained', () => { if (current()) this.dispatch({ type: 'drained' }) })
    proc.events.on('lingering', (connections) => { if (current()) this.dispatch({ type: 'lingering', connections }) })
    proc.events.once('relay-dropping', () => {
      if (current()) this.report({ kind: 'relay-drop', level: 'warn', message: `@socket.io/cluster-adapter messages for this worker are being dropped: more than ${RELAY_BACKLOG_MIB} MiB wait to be written to it (it does not read them, or another worker floods); socket.io takes them as lost broadcasts`, data: { backlog_bytes: RELAY_LIMITS.backlogBytes } })
    })
    proc.events.on('message', (message) => { if (current()) this.emit('message', message) })
    proc.events.on('metrics', (message) => {
      const report = current() && readAgentReport(message)
      if (report) this.emit('agent', { ...report, at: this.now() })
    })
    if (proc.pid !== undefined) this.spawned(proc, proc.pid)
    // A cluster worker on another node: its primary tells the pid a moment later.
    else proc.events.once('spawned', (pid) => { if (current()) this.spawned(proc, pid) })
  }

  /**
   * Why a process that never came online exited, from its last stderr lines (diagnose.js).
   * @param {import('./spawn.js').SpawnedWorker} proc
   * @returns {Promise<string | null>}
   */
  async causeOfExit (proc) {
    // The pipe may still hold its last lines: wait for its end, but not for a grandchild
    // that keeps it open.
    if (proc.stderr && !proc.stderr.readableEnded) {
      await Promise.race([finished(proc.stderr).catch(() => {}), new Promise((resolve) => this.effects.timers.setTimeout(() => resolve(undefined), STDERR_END_MS))])
    }
    const lines = this.logs.ring.last(DIAGNOSED_LINES, (e) => e.id === this.id && e.stream === 'err').map((e) => e.line)
    return diagnoseStart(lines).catch(() => null)
  }

  /**
   * The environment a process of this worker is given now (before the agent's and the token):
   * the `sup set` values are read at each start, whatever generation of the config it runs.
   * @returns {Record<string, string>}
   */
  env () {
    const { config, shellEnv } = this.revision
    return buildWorkerEnv(config, shellEnv, this.instance, this.effects.settings?.(config.name))
  }

  /**
   * The node a new process of this worker would run on now (throws a SupError when there is none).
   * @returns {import('../node-runtime/resolve.js').Runtime | null}
   */
  nextRuntime () {
    const { config, shellEnv } = this.revision
    return this.effects.runtime(config, { ...shellEnv, ...config.env })
  }

  /**
   * In cluster mode, the node the app's other running workers run on: a primary on another
   * node could not listen on the port theirs holds. A cluster app moves to another node by
   * stopping all its workers first (restartWorkers in daemon/app/app.js).
   * @returns {import('../node-runtime/resolve.js').Runtime | null}
   */
  pinnedRuntime () {
    if (this.config.exec_mode !== 'cluster') return null
    const running = this.siblings().find((w) => w !== this && w.runtime !== null && isRunning(w.state) && w.config.exec_mode === 'cluster')
    return running?.runtime ?? null
  }

  /**
   * @param {import('./spawn.js').SpawnedWorker} proc
   * @param {number} pid
   */
  spawned (proc, pid) {
    // Its start time bounds the sweep for what it leaves behind (reapOrphans).
    this.startTime = this.effects.tree.read(pid).then((p) => p?.startTime ?? null, () => null)
    this.report({ kind: 'spawned', level: 'info', message: `started (pid ${pid})`, data: { pid } })
    // Stopped before its pid was known: the stop ladder had nothing to signal yet.
    if (this.state.status === STATUS.STOPPING) this.effects.tree.signal(pid, 'SIGKILL')
    this.dispatch({ type: 'spawned', pid })
  }

  /**
   * Where a stream's lines come from; the id is read per line, so lines a retiring worker
   * writes after it gave its id to its successor carry the id it has now.
   * @param {'out' | 'err'} stream
   * @returns {import('../logs/sink.js').Source}
   */
  logSource (stream) {
    const worker = this
    return { get id () { return worker.id }, instance: this.instance, stream }
  }

  /**
   * Take another id: a reload hands the old worker's id to its successor, as PM2 does, and
   * the old one keeps a spare id until it is gone (daemon/rollout/rollout.js).
   * @param {number} id
   */
  renumber (id) {
    if (id === this.id) return
    this.id = id
    this.logger = this.baseLogger.child({ app: this.config.name, id, instance: this.instance })
    this.emit('renumber', id)
    if (!this.removed) this.emit('state', this.state)
  }

  /**
   * Start the process; a spawn() that throws (a value the kernel cannot take) is a failed
   * start, exit code 127 as for a missing file, never an exception through the daemon.
   * @param {import('../../ipc/app-config.js').AppConfig} config
   * @param {Record<string, string>} env
   * @returns {import('./spawn.js').SpawnedWorker}
   */
  trySpawn (config, env) {
    try {
      // Resolved for every process (a restart after `nvm install` and a new .nvmrc takes the new
      // node), but a cluster worker stays on its running siblings' node: their primary holds the port.
      this.runtime = null
      this.runtime = this.pinnedRuntime() ?? this.nextRuntime()
      return this.effects.spawn(config, env, this.sockets?.handOver() ?? null, this.runtime)
    } catch (err) {
      this.logger.error({ err }, 'could not start the process')
      const events = new EventEmitter()
      queueMicrotask(() => events.emit('exit', 127, null, err))
      return { pid: undefined, ownGroup: false, stdout: null, stderr: null, send: () => {}, events }
    }
  }

  /**
   * A message for sup's agent inside a node worker (daemon/agent/agent.cjs). Its cmd starts
   * with NODE_ so that it arrives as an 'internalMessage' the app never sees.
   * @param {import('../../ipc/agent-protocol.cjs').AgentAct} act
   * @param {Record<string, unknown>} [extra]
   */
  tellAgent (act, extra = {}) {
    this.proc?.send(toAgent(act, extra))
  }

  /**
   * Record the tree first: once the worker exits its children are re-parented and lost to us.
   * @param {import('./spawn.js').SpawnedWorker | null} proc
   */
  async stopGracefully (proc) {
    if (!proc?.pid) return
    this.tree = await this.effects.tree.list(proc.pid).catch(() => [])
    if (this.proc !== proc || this.state.status !== STATUS.STOPPING) return
    const { config } = this.revision
    // Only a worker with a channel can hear the message (node ones); the others get the
    // signal, as in PM2, rather than nothing and a SIGKILL at kill_timeout. The signal goes to
    // the worker's whole group, as PM2's tree kill does: `npm start` (a shell, npm, then the
    // server) would otherwise pass it to npm only, and the server die of SIGKILL at kill_timeout.
    if ((config.shutdown_with_message || this.shutdownWithMessage) && usesAgent(config)) proc.send(APP_MESSAGES.shutdown)
    else this.effects.tree.signal(proc.ownGroup ? -proc.pid : proc.pid, 'SIGINT')
  }

  /** @param {import('./spawn.js').SpawnedWorker | null} proc */
  async killTree (proc) {
    if (!proc?.pid) return
    // The end of the ladder ends the whole cgroup: what left the tree dies too.
    proc.cgroup?.kill().catch((err) => this.logger.warn({ err }, 'could not end the worker\'s cgroup'))
    const { tree: processes } = this.effects
    const tree = await processes.list(proc.pid).catch(() => [])
    this.tree = [...this.tree, ...tree]
    if (proc.ownGroup) processes.signal(-proc.pid, 'SIGKILL')
    processes.signal(proc.pid, 'SIGKILL')
    await processes.signalRecorded(this.tree, 'SIGKILL')
  }

  /**
   * Whatever the worker left behind dies with it: its process group (fork mode) and the
   * descendants recorded when the stop began.
   * @param {import('./spawn.js').SpawnedWorker | null} proc
   * @param {string | null} token the token that process was started with
   * @param {Promise<string | null>} startTime that process's start time
   */
  reapOrphans (proc, token, startTime) {
    const reap = async () => {
      // In a cgroup nothing can have left it: ending it is the whole reap.
      if (proc?.cgroup) {
        const killed = await proc.cgroup.remove()
        if (killed > 0) this.logger.info({ killed }, 'killed processes the worker left behind (its cgroup)')
        return
      }
      if (proc?.ownGroup && proc.pid) this.effects.tree.signal(-proc.pid, 'SIGKILL')
      const tree = this.tree
      this.tree = []
      let killed = await this.effects.tree.signalRecorded(tree, 'SIGKILL')
      // And what left the tree: a daemonised grandchild (setsid, re-parented to init), or the
      // children of a cluster worker that crashed, found by the token in their environment.
      const marked = token ? await this.effects.tree.marked(token, await startTime).catch(() => []) : []
      killed += await this.effects.tree.signalRecorded(marked, 'SIGKILL')
      if (killed > 0) this.logger.info({ killed }, 'killed processes the worker left behind')
    }
    const reaping = reap().catch((err) => this.logger.warn({ err }, 'could not reap what the worker left behind'))
    this.reaping.add(reaping)
    reaping.finally(() => this.reaping.delete(reaping))
  }

  /** Resolves once every reap begun so far is done (the daemon waits for it before exiting). */
  async reaped () {
    await Promise.all([...this.reaping])
  }

  /**
   * @param {import('./lifecycle.js').TimerName} name
   * @param {number} ms
   */
  setTimer (name, ms) {
    this.clearTimer(name)
    this.timers.set(name, this.effects.timers.setTimeout(() => {
      this.timers.delete(name)
      this.dispatch({ type: 'timer', name })
    }, ms))
  }

  /** @param {import('./lifecycle.js').TimerName} name */
  clearTimer (name) {
    if (this.timers.has(name)) this.effects.timers.clearTimeout(this.timers.get(name))
    this.timers.delete(name)
  }
}
