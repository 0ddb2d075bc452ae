// @ts-check
// The effect runner on a fake process and a fake clock: the stop ladder, readiness, and
// restarts after a crash with their backoff.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Worker } from '../../../../daemon/worker/worker.js'
import { workerRow } from '../../../../daemon/app/worker-row.js'
import { appConfig, fakeEffects, silentLogger, soon } from '../../../helpers/fake-effects.js'

/** A log sink that takes nothing: these tests are about processes and time. */
const noLogs = /** @type {import('../../../../daemon/logs/sink.js').LogSink} */ (/** @type {unknown} */ ({
  attach () {},
  statusFor: () => ({ log_error: null, log_dropped_lines: 0, log_dropped_bytes: 0 })
}))

/**
 * @param {Partial<import('../../../../ipc/app-config.js').AppConfig>} overrides
 * @param {Parameters<typeof fakeEffects>[0]} [options]
 * @param {boolean} [shutdownWithMessage] the daemon's setting
 */
function setup (overrides, options, shutdownWithMessage = false) {
  const effects = fakeEffects(options)
  const config = appConfig({ instances: 1, ...overrides })
  const worker = new Worker({ id: 0, instance: 0, revision: { config, shellEnv: { FROM_SHELL: '1' } }, logs: noLogs, logger: silentLogger, effects, shutdownWithMessage })
  return { effects, worker, config }
}

describe('stop ladder', () => {
  /**
   * @typedef {object} LadderCase
   * @property {string} name
   * @property {Partial<import('../../../../ipc/app-config.js').AppConfig>} config
   * @property {(proc: import('../../../helpers/fake-effects.js').FakeProcess, signal: NodeJS.Signals) => void} [onSignal] how the process takes a signal
   * @property {(proc: import('../../../helpers/fake-effects.js').FakeProcess) => void} [onShutdown] how it takes the 'shutdown' message
   * @property {number} after ms after the stop began
   * @property {string} status
   * @property {Array<[string, NodeJS.Signals]>} signals 'pid' is the worker, '-pid' its group
   * @property {unknown[]} sent messages to the process
   * @property {boolean} [daemonWide] the daemon's shutdownWithMessage (PM2_KILL_USE_MESSAGE)
   */
  /** @type {LadderCase[]} */
  const cases = [
    {
      name: 'SIGINT to its whole group first (npm start: the server too); a worker that exits on it is stopped, its group reaped (fork mode)',
      config: { exec_mode: 'fork' },
      onSignal: (proc, signal) => { if (signal === 'SIGINT') soon(() => proc.exit(0)) },
      after: 0,
      status: 'stopped',
      signals: [['-pid', 'SIGINT'], ['-pid', 'SIGKILL']],
      sent: []
    },
    {
      name: 'a worker that ignores SIGINT is still stopping 1 ms before kill_timeout',
      config: { exec_mode: 'fork', kill_timeout: 700 },
      after: 699,
      status: 'stopping',
      signals: [['-pid', 'SIGINT']],
      sent: []
    },
    {
      name: 'at kill_timeout: SIGKILL to its group and to it, then it is stopped',
      config: { exec_mode: 'fork', kill_timeout: 700 },
      after: 700,
      status: 'stopped',
      signals: [['-pid', 'SIGINT'], ['-pid', 'SIGKILL'], ['pid', 'SIGKILL'], ['-pid', 'SIGKILL']],
      sent: []
    },
    {
      name: 'cluster mode: no process group to signal',
      config: { exec_mode: 'cluster', kill_timeout: 500 },
      after: 500,
      status: 'stopped',
      signals: [['pid', 'SIGINT'], ['pid', 'SIGKILL']],
      sent: []
    },
    {
      name: 'shutdown_with_message: the message instead of SIGINT',
      config: { exec_mode: 'cluster', shutdown_with_message: true },
      onShutdown: (proc) => soon(() => proc.exit(0)),
      after: 0,
      status: 'stopped',
      signals: [],
      sent: ['shutdown']
    },
    {
      name: 'shutdown_with_message ignored: SIGKILL at kill_timeout all the same',
      config: { exec_mode: 'cluster', shutdown_with_message: true, kill_timeout: 300 },
      after: 300,
      status: 'stopped',
      signals: [['pid', 'SIGKILL']],
      sent: ['shutdown']
    },
    {
      name: 'the daemon-wide setting: the message to a node worker whose app does not ask for it',
      config: { exec_mode: 'fork', interpreter: null },
      daemonWide: true,
      onShutdown: (proc) => soon(() => proc.exit(0)),
      after: 0,
      status: 'stopped',
      signals: [['-pid', 'SIGKILL']],
      sent: ['shutdown']
    },
    {
      name: 'shutdown_with_message on a worker of another interpreter, which has no channel to hear it: SIGINT, as in PM2',
      config: { exec_mode: 'fork', interpreter: 'python3', shutdown_with_message: true },
      onSignal: (proc, signal) => { if (signal === 'SIGINT') soon(() => proc.exit(0)) },
      after: 0,
      status: 'stopped',
      signals: [['-pid', 'SIGINT'], ['-pid', 'SIGKILL']],
      sent: []
    },
    {
      name: 'the daemon-wide setting: SIGINT to a worker of another interpreter, which has no channel to hear a message',
      config: { exec_mode: 'fork', interpreter: 'python3' },
      daemonWide: true,
      onSignal: (proc, signal) => { if (signal === 'SIGINT') soon(() => proc.exit(0)) },
      after: 0,
      status: 'stopped',
      signals: [['-pid', 'SIGINT'], ['-pid', 'SIGKILL']],
      sent: []
    }
  ]

  for (const c of cases) {
    test(c.name, async () => {
      const { effects, worker } = setup({ ...c.config, min_uptime: 100 }, { onSignal: c.onSignal }, c.daemonWide)
      worker.dispatch({ type: 'start' })
      const [proc] = effects.spawned
      proc.listen()
      assert.equal(worker.state.status, 'online')
      if (c.onShutdown) {
        const send = proc.send.bind(proc)
        proc.send = (message) => { send(message); if (message === 'shutdown') c.onShutdown?.(proc) }
      }
      worker.dispatch({ type: 'stop' })
      await effects.clock.advance(c.after)
      assert.equal(worker.state.status, c.status)
      const pid = /** @type {number} */ (proc.pid)
      assert.deepEqual(effects.signals, c.signals.map(([who, signal]) => [who === 'pid' ? pid : -pid, signal]))
      assert.deepEqual(proc.sent, c.sent)
      if (c.status === 'stopped') assert.equal(effects.clock.pending().count, 0, 'no timer left behind')
    })
  }

  test('a stop during the graceful step is not sent to a process that has meanwhile been replaced', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork' })
    worker.dispatch({ type: 'start' })
    const [first] = effects.spawned
    first.listen()
    worker.dispatch({ type: 'stop', afterStop: 'start' })
    // It exits before the descendants are listed: the SIGINT must not reach its successor.
    first.exit(0)
    await effects.clock.advance(0)
    assert.equal(effects.spawned.length, 2)
    const second = /** @type {number} */ (effects.spawned[1].pid)
    assert.equal(effects.signals.some(([pid, signal]) => pid === second && signal === 'SIGINT'), false)
    assert.equal(worker.state.status, 'starting')
  })
})

describe('readiness', () => {
  test('online on listening, or at min_uptime for an app that never listens', async () => {
    const { effects, worker } = setup({ min_uptime: 1000 })
    worker.dispatch({ type: 'start' })
    assert.equal(worker.state.status, 'starting')
    await effects.clock.advance(999)
    assert.equal(worker.state.status, 'starting')
    await effects.clock.advance(1)
    assert.equal(worker.state.status, 'online')
  })

  test('with wait_ready, listening does not count; ready does', async () => {
    const { effects, worker } = setup({ wait_ready: true, listen_timeout: 3000 })
    worker.dispatch({ type: 'start' })
    effects.spawned[0].listen()
    await effects.clock.advance(2000)
    assert.equal(worker.state.status, 'starting')
    effects.spawned[0].ready()
    assert.equal(worker.state.status, 'online')
  })

  test('the worker env is the shell, then the app env, then the instance variable', () => {
    const { effects, worker } = setup({ env: { PORT: '3000' } })
    worker.dispatch({ type: 'start' })
    const { env } = effects.spawned[0]
    assert.equal(env.FROM_SHELL, '1')
    assert.equal(env.PORT, '3000')
    assert.equal(env.NODE_APP_INSTANCE, '0')
  })

  test('the `sup set` values come from the injected settings, read at each start', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', env: { PORT: '3000' } })
    let values = { PORT: '4000' }
    const settings = (/** @type {string} */ name) => name === 'api' ? values : {}
    Object.assign(effects, { settings })
    worker.dispatch({ type: 'start' })
    assert.equal(effects.spawned[0].env.PORT, '4000')
    values = { PORT: '5000' }
    worker.dispatch({ type: 'stop', afterStop: 'start' })
    effects.spawned[0].exit(0)
    await effects.clock.advance(0)
    assert.equal(effects.spawned[1].env.PORT, '5000')
  })

  test('a spawn that fails (no pid) counts as an exit with code 127', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', restart_delay: 500 }, { failSpawn: true })
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(0)
    assert.equal(worker.state.status, 'waiting')
    assert.deepEqual(worker.state.lastExit && { code: worker.state.lastExit.code, signal: worker.state.lastExit.signal }, { code: 127, signal: null })
  })
})

describe('restart after a crash', () => {
  /**
   * @typedef {object} CrashCase
   * @property {string} name
   * @property {Partial<import('../../../../ipc/app-config.js').AppConfig>} config
   * @property {number[]} uptimes how long each process runs before it crashes (ms)
   * @property {number[]} delays the restart delay after each crash (ms)
   */
  /** @type {CrashCase[]} */
  const cases = [
    { name: 'restart_delay: the same wait after every crash', config: { restart_delay: 250 }, uptimes: [2000, 2000, 2000], delays: [250, 250, 250] },
    { name: 'exp_backoff_restart_delay: 100, then ×1.5 each time', config: { exp_backoff_restart_delay: 100 }, uptimes: [2000, 2000, 2000, 2000], delays: [100, 150, 225, 338] },
    { name: 'exp backoff starts over after 30 s of uptime', config: { exp_backoff_restart_delay: 100 }, uptimes: [2000, 2000, 30_000], delays: [100, 150, 100] },
    { name: 'no delay configured: at once', config: {}, uptimes: [2000, 2000], delays: [0, 0] }
  ]

  for (const c of cases) {
    test(c.name, async () => {
      const { effects, worker } = setup({ exec_mode: 'fork', min_uptime: 1000, ...c.config })
      worker.dispatch({ type: 'start' })
      for (const [i, uptime] of c.uptimes.entries()) {
        await effects.clock.advance(uptime)
        assert.equal(worker.state.status, 'online')
        effects.spawned[i].exit(1)
        const delay = c.delays[i]
        assert.equal(worker.state.status, 'waiting')
        assert.equal(worker.state.retryAt, effects.now() + delay)
        if (delay > 0) {
          await effects.clock.advance(delay - 1)
          assert.equal(effects.spawned.length, i + 1, `no new process before ${delay} ms`)
        }
        await effects.clock.advance(delay > 0 ? 1 : 0)
        assert.equal(effects.spawned.length, i + 2, `a new process ${delay} ms after crash ${i + 1}`)
        assert.equal(worker.state.status, 'starting')
        assert.equal(worker.state.restarts, i + 1)
      }
    })
  }

  test('a crash loop turns errored, stops spawning, and retries half-open 30 s later', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', min_uptime: 1000, max_restarts: 2 })
    worker.dispatch({ type: 'start' })
    // Two fast exits are tolerated (restarted at once), the third trips the breaker.
    for (let i = 0; i < 2; i++) {
      effects.spawned[i].exit(1)
      assert.equal(worker.state.status, 'waiting')
      await effects.clock.advance(0)
    }
    effects.spawned[2].exit(1)
    assert.equal(worker.state.status, 'errored')
    assert.equal(worker.state.retryAt, effects.now() + 30_000)
    await effects.clock.advance(29_999)
    assert.equal(effects.spawned.length, 3)
    await effects.clock.advance(1)
    assert.equal(effects.spawned.length, 4)
    assert.equal(worker.state.status, 'starting')
  })

  test('each process gets a token of its own, and what carries the exited one\'s is killed', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', min_uptime: 100, restart_delay: 0 })
    /** @type {string[]} */
    const asked = []
    /** @type {import('../../../../daemon/worker/process-tree.js').ProcInfo[][]} */
    const signalled = []
    effects.tree.marked = async (token) => {
      asked.push(token)
      return [{ pid: 9999, ppid: 1, startTime: '1' }]
    }
    effects.tree.signalRecorded = async (recorded) => {
      signalled.push(recorded)
      return recorded.length
    }
    worker.dispatch({ type: 'start' })
    const [first] = effects.spawned
    first.listen()
    first.exit(1)
    await effects.clock.advance(1)
    const [firstToken, secondToken] = effects.spawned.map((p) => p.env.SUP_WORKER_TOKEN)
    assert.ok(firstToken && secondToken && firstToken !== secondToken, 'a new token for the restarted process')
    assert.deepEqual(asked, [firstToken], 'the sweep looks for the exited process\'s token, not the new one\'s')
    assert.deepEqual(signalled.at(-1)?.map((p) => p.pid), [9999])
  })

  test('a spawn that throws a permanent error is a failed start (127) with its reason, errored, not retried in a loop', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', restart_delay: 500, max_restarts: 1 })
    let calls = 0
    effects.spawn = () => {
      calls++
      throw Object.assign(new TypeError('The argument must be a string without null bytes'), { code: 'ERR_INVALID_ARG_VALUE' })
    }
    /** @type {any[]} */
    const events = []
    worker.on('event', (e) => events.push(e))
    assert.doesNotThrow(() => worker.dispatch({ type: 'start' }))
    await effects.clock.advance(2000)
    assert.equal(calls, 1, 'no retry within 2 s')
    assert.equal(worker.state.status, 'errored')
    assert.equal(worker.state.lastExit?.code, 127)
    assert.equal(worker.state.lastExit?.reason, 'could not start: The argument must be a string without null bytes')
    assert.equal(workerRow(worker, { usage: { cpu: 0, memory: 0 }, restored: undefined, logStatus: noLogs.statusFor(0), now: effects.now() }).last_exit?.reason, worker.state.lastExit?.reason)
    const failed = events.find((e) => e.kind === 'spawn-error')
    assert.match(failed?.message, /^could not start: The argument must be a string without null bytes; not retried in a loop: trying again in 30000 ms$/)
    await effects.clock.advance(30_000)
    assert.equal(calls, 2, 'tried again after the crash-loop delay')
  })

  test('a spawn that fails for want of a resource (EMFILE) is retried as a crash is', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', restart_delay: 500, max_restarts: 5 })
    let calls = 0
    effects.spawn = () => {
      calls++
      throw Object.assign(new Error('spawn EMFILE'), { code: 'EMFILE' })
    }
    worker.dispatch({ type: 'start' })
    await effects.clock.advance(2000)
    assert.ok(calls >= 2, `retried: ${calls} spawn calls`)
    assert.equal(worker.state.lastExit?.reason, 'could not start: spawn EMFILE')
  })

  test('an exit of a process already replaced is ignored', async () => {
    const { effects, worker } = setup({ exec_mode: 'fork', min_uptime: 100 })
    worker.dispatch({ type: 'start' })
    const [first] = effects.spawned
    first.listen()
    worker.dispatch({ type: 'stop', afterStop: 'start' })
    first.exit(0)
    effects.spawned[1].listen()
    first.events.emit('exit', 1, null)
    assert.equal(worker.state.status, 'online')
    assert.equal(worker.state.restarts, 1)
  })
})
