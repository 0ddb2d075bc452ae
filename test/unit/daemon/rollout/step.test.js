// @ts-check
// The rollout's step function as a table: every step of a reload, a scale and an abort, each
// from a state reached by playing events, with the effects it asks for; then whole stories.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DEFAULT_LIMITS } from '../../../../daemon/rollout/plan.js'
import { RETIRE_GRACE, initialState, resultOf, step } from '../../../../daemon/rollout/step.js'

/**
 * @typedef {import('../../../../daemon/rollout/step.js').RollState} RollState
 * @typedef {import('../../../../daemon/rollout/step.js').RollEvent} RollEvent
 * @typedef {import('../../../../daemon/rollout/step.js').RollEffect} RollEffect
 * @typedef {import('../../../../daemon/rollout/step.js').WorkerView} WorkerView
 * @typedef {import('../../../../daemon/rollout/step.js').Setup} Setup
 * @typedef {import('../../../../daemon/rollout/step.js').OldSpec} OldSpec
 */

const T = 1_000_000
const LISTEN = 3000
const KILL = 1000
const SPARE = 7
/** @type {import('../../../../daemon/rollout/step.js').NewConfig} */
const CONFIG = { name: 'api', wait_ready: false, readiness: null, listen_timeout: LISTEN, kill_timeout: KILL, exec_mode: 'cluster' }
const PROBE = { type: /** @type {const} */ ('http'), host: '127.0.0.1', port: null, path: '/ready', status: null, command: [], initial_delay: 0, period: 1000, timeout: 1000, failure_threshold: 3, success_threshold: 1 }

/** A worker online and listening, unless told otherwise. @param {number} pid @param {Partial<WorkerView>} [o] @returns {WorkerView} */
const view = (pid, o = {}) => ({ status: 'online', pid, restarts: 0, listening: true, ready: false, probeReady: false, lastExit: null, lingering: 0, removed: false, probe: null, ...o })
/** @param {number} pid @param {Partial<WorkerView>} [o] */
const starting = (pid, o = {}) => view(pid, { status: 'starting', listening: false, ...o })
/** @param {Record<string, WorkerView>} views @param {number} [online] @returns {RollEvent} */
const observe = (views, online = Object.values(views).filter((v) => v.status === 'online').length) => ({ type: 'observe', views, online })
/** @param {string} key @param {number} id @param {number} pid @param {number | null} [spareId] @returns {RollEvent} */
const started = (key, id, pid, spareId = null) => ({ type: 'started', key, id, pid, spareId })

/** An old worker: id = instance, pid = 100 + instance. @param {number} instance @param {Partial<OldSpec>} [o] @returns {OldSpec} */
const old = (instance, o = {}) => ({ key: `o${instance}`, id: instance, instance, drainable: true, killTimeout: KILL, ...o })
/** @param {Partial<Setup>} [o] @returns {Setup} */
const setup = (o = {}) => ({ config: CONFIG, instances: [0, 1], limits: DEFAULT_LIMITS, expectListen: true, gate: false, ...o })

// The old workers of a 2-worker reload, restarted 3 times each.
const O0 = view(100, { restarts: 3 })
const O1 = view(101, { restarts: 3 })

/**
 * Play events from the start of a rollout; returns the state after the last one.
 * @param {Array<[number, RollEvent]>} events [now, event]
 * @param {{ setup?: Setup, old?: OldSpec[] }} [begin]
 */
function after (events, { setup: s = setup(), old: o = [old(0), old(1)] } = {}) {
  let state = initialState(s, o)
  for (const [now, event] of events) state = step(state, event, now).state
  return state
}

// A 2-worker reload, step by step (surge 1, max unavailable 0).
const RELOAD = /** @type {Array<[number, RollEvent]>} */ ([
  [T, observe({ o0: O0, o1: O1 })], // 0: start n0
  [T, started('n0', 0, 200, SPARE)], // 1: o0 moved to a spare id
  [T + 10, observe({ o0: O0, o1: O1, n0: starting(200) })], // 2: waiting for n0
  [T + 50, observe({ o0: O0, o1: O1, n0: view(200) })], // 3: n0 ready, retire o0
  [T + 51, observe({ o0: view(100, { status: 'stopping', restarts: 3 }), o1: O1, n0: view(200) })], // 4: start n1
  [T + 51, started('n1', 1, 201, SPARE + 1)], // 5
  [T + 60, observe({ o0: view(null, { status: 'stopped', removed: true }), o1: O1, n0: view(200), n1: starting(201) })], // 6: o0 gone
  [T + 90, observe({ o0: view(null, { status: 'stopped', removed: true }), o1: O1, n0: view(200), n1: view(201) })], // 7: n1 ready, retire o1
  [T + 120, observe({ o0: view(null, { status: 'stopped', removed: true }), o1: view(null, { status: 'stopped', removed: true }), n0: view(200), n1: view(201) })] // 8: done
])
/** The state after the first n events of RELOAD. @param {number} n */
const reload = (n) => after(RELOAD.slice(0, n))
/** The reload as far as n0 starting (3 events), then one more event. */
const N0_STARTING = RELOAD.slice(0, 3)

/**
 * Effects written short: 'start:n0 id=0 renumber=o0 restarts=4', 'stop:o0 drain', 'report:ready'.
 * @param {RollEffect} effect
 */
function describeEffect (effect) {
  switch (effect.type) {
    case 'start': return `start:${effect.key} id=${effect.id} renumber=${effect.renumber} restarts=${effect.restarts}${effect.gate ? ' gate' : ''}`
    case 'open': return `open:${effect.key}`
    case 'renumber': return `renumber:${effect.key}=${effect.id}`
    case 'stop': return `stop:${effect.key}${effect.drain ? ' drain' : ''}`
    case 'shut-down': return `shut-down:${effect.key}`
    case 'report': return `report:${effect.progress.phase}`
  }
}

/**
 * @typedef {object} Case
 * @property {string} name
 * @property {RollState} from
 * @property {RollEvent} event
 * @property {number} now
 * @property {RollState['phase']} phase expected
 * @property {string[]} effects expected, in order (see describeEffect)
 * @property {(state: RollState, effects: RollEffect[]) => void} [check] more to assert
 */

/** @param {RollEffect[]} effects @param {string} phase */
const progress = (effects, phase) => effects.flatMap((e) => e.type === 'report' && e.progress.phase === phase ? [e.progress] : [])
/** @param {RollState} s @param {string} key */
const oldOf = (s, key) => s.old.find((o) => o.key === key)
/** @param {RollState} s @param {string} key */
const freshOf = (s, key) => s.fresh.find((f) => f.key === key)

/** @type {Case[]} */
const cases = [
  // Surge: a new worker first.
  {
    name: 'surge start: one new worker on instance 0, taking its predecessor\'s id and restarts + 1',
    from: reload(0),
    event: RELOAD[0][1],
    now: T,
    phase: 'rolling',
    effects: ['start:n0 id=0 renumber=o0 restarts=4'],
    check: (s) => {
      assert.deepEqual(s.pending?.starts, ['n0'])
      assert.equal(freshOf(s, 'n0')?.deadline, T + LISTEN)
      assert.equal(s.wakeAt, null, 'no deadline runs until the start is answered')
    }
  },
  {
    name: 'started: the predecessor shows its spare id; the start is reported',
    from: reload(1),
    event: RELOAD[1][1],
    now: T,
    phase: 'rolling',
    effects: ['report:start'],
    check: (s, effects) => {
      assert.equal(oldOf(s, 'o0')?.id, SPARE)
      assert.deepEqual(progress(effects, 'start'), [{ phase: 'start', id: 0, instance: 0, pid: 200, total: 2 }])
      assert.equal(s.pending, null)
      assert.equal(s.wakeAt, T + LISTEN, 'then it waits at most listen_timeout')
    }
  },
  {
    name: 'a started event nobody asked for is ignored',
    from: reload(2),
    event: started('n1', 1, 999),
    now: T,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'new worker still starting: nothing to do but wait for it',
    from: reload(2),
    event: RELOAD[2][1],
    now: T + 10,
    phase: 'rolling',
    effects: [],
    check: (s) => assert.equal(s.wakeAt, T + LISTEN)
  },
  {
    name: 'not ready 1 ms before listen_timeout: still waited for',
    from: reload(3),
    event: observe({ o0: O0, o1: O1, n0: starting(200) }),
    now: T + LISTEN - 1,
    phase: 'rolling',
    effects: []
  },

  // New worker ready: retire one old worker.
  {
    name: 'new worker ready: the old one on its instance is drained',
    from: reload(3),
    event: RELOAD[3][1],
    now: T + 50,
    phase: 'rolling',
    effects: ['report:ready', 'stop:o0 drain'],
    check: (s, effects) => {
      assert.deepEqual(progress(effects, 'ready'), [{ phase: 'ready', id: 0, instance: 0, pid: 200, ready: 1, total: 2, retiring: [{ id: SPARE, instance: 0, pid: 100 }] }])
      const o0 = oldOf(s, 'o0')
      assert.deepEqual([o0?.stage, o0?.since, o0?.goneBy], ['retiring', T + 50, T + 50 + 2 * KILL + RETIRE_GRACE])
      assert.equal(freshOf(s, 'n0')?.stage, 'ready')
    }
  },
  {
    name: 'the retired one no longer serves: the next new worker starts while it drains',
    from: reload(4),
    event: RELOAD[4][1],
    now: T + 51,
    phase: 'rolling',
    effects: ['start:n1 id=1 renumber=o1 restarts=4']
  },
  {
    name: 'retired worker gone: reported with how long it took',
    from: reload(6),
    event: RELOAD[6][1],
    now: T + 60,
    phase: 'rolling',
    effects: ['report:retired'],
    check: (s, effects) => {
      assert.deepEqual(progress(effects, 'retired'), [{ phase: 'retired', id: SPARE, instance: 0, pid: 100, ms: 10 }])
      assert.deepEqual(s.retired, [{ id: SPARE, instance: 0, pid: 100 }])
    }
  },
  {
    name: 'a retired worker not gone after 2 x kill_timeout + grace is no longer waited for',
    from: reload(8),
    event: observe({ o0: view(null, { status: 'stopped', removed: true }), o1: view(101, { status: 'stopping', restarts: 3 }), n0: view(200), n1: view(201) }),
    now: T + 90 + 2 * KILL + RETIRE_GRACE,
    phase: 'done',
    effects: ['report:retired'],
    check: (s) => assert.deepEqual(resultOf(s).retired.map((r) => r.id), [SPARE, SPARE + 1])
  },
  {
    name: 'the last new worker ready: the last old one goes',
    from: reload(7),
    event: RELOAD[7][1],
    now: T + 90,
    phase: 'rolling',
    effects: ['report:ready', 'stop:o1 drain'],
    check: (s) => {
      assert.equal(oldOf(s, 'o1')?.stage, 'retiring')
      assert.equal(s.wakeAt, T + 90 + 2 * KILL + RETIRE_GRACE, 'the only deadline left: the retired one\'s')
    }
  },
  {
    name: 'completion: every old worker gone',
    from: reload(8),
    event: RELOAD[8][1],
    now: T + 120,
    phase: 'done',
    effects: ['report:retired'],
    check: (s) => {
      assert.deepEqual(resultOf(s), {
        outcome: 'done',
        reason: null,
        started: [{ id: 0, instance: 0, pid: 200 }, { id: 1, instance: 1, pid: 201 }],
        retired: [{ id: SPARE, instance: 0, pid: 100 }, { id: SPARE + 1, instance: 1, pid: 101 }],
        failed: []
      })
      assert.equal(s.wakeAt, null)
    }
  },
  {
    name: 'once done, an event changes nothing',
    from: reload(9),
    event: observe({}),
    now: T + 200,
    phase: 'done',
    effects: []
  },

  // Aborts: the old workers keep serving, with their ids back.
  {
    name: 'new worker crashed: abort; it gives its id back and is drained and removed',
    from: after(N0_STARTING),
    event: observe({ o0: O0, o1: O1, n0: view(null, { status: 'waiting', lastExit: { code: 1, signal: null, at: T + 20 } }) }),
    now: T + 20,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => {
      assert.match(String(s.reason), /^new worker 0 of api \(instance 0, pid 200\) exited with code 1 before it was ready \(sup logs api --err --nostream shows why\)$/)
      assert.deepEqual(s.failed, [{ id: SPARE, instance: 0, pid: 200 }])
      assert.deepEqual(s.old.map((o) => [o.key, o.id, o.stage]), [['o0', 0, 'remaining'], ['o1', 1, 'remaining']])
      assert.equal(s.wakeAt, T + 20 + 2 * KILL + RETIRE_GRACE)
    }
  },
  {
    name: 'new worker killed by a signal: the reason names it',
    from: after(N0_STARTING),
    event: observe({ o0: O0, o1: O1, n0: view(null, { status: 'waiting', lastExit: { code: null, signal: 'SIGKILL', at: T + 20 } }) }),
    now: T + 20,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.match(String(s.reason), /exited with signal SIGKILL before it was ready/)
  },
  {
    name: 'new worker not ready within listen_timeout: abort',
    from: after(N0_STARTING),
    event: observe({ o0: O0, o1: O1, n0: starting(200) }),
    now: T + LISTEN,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.equal(s.reason, 'new worker 0 of api (instance 0, pid 200) was not ready within listen_timeout (3000 ms): it never listened (raise --listen-timeout if it needs longer)')
  },
  {
    name: 'abort by the user: a new worker stopped by another command',
    from: after(N0_STARTING),
    event: observe({ o0: O0, o1: O1, n0: starting(200, { status: 'stopping' }) }),
    now: T + 20,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.match(String(s.reason), /^new worker 0 of api \(instance 0, pid 200\) was stopped by another command$/)
  },
  {
    name: 'abort by the user: a new worker deleted by another command is not waited for',
    from: after(N0_STARTING),
    event: observe({ o0: O0, o1: O1, n0: view(null, { status: 'stopped', removed: true }) }),
    now: T + 20,
    phase: 'done',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.deepEqual(resultOf(s), { outcome: 'aborted', reason: s.reason, started: [], retired: [], failed: [{ id: SPARE, instance: 0, pid: 200 }] })
  },
  {
    name: 'the failed new worker gone: the abort is over, the old workers serve',
    from: after([...N0_STARTING, [T + 20, observe({ o0: O0, o1: O1, n0: view(null, { status: 'waiting', lastExit: { code: 1, signal: null, at: T + 20 } }) })]]),
    event: observe({ o0: O0, o1: O1, n0: view(null, { status: 'stopped', removed: true }) }),
    now: T + 30,
    phase: 'done',
    effects: [],
    check: (s) => {
      const result = resultOf(s)
      assert.equal(result.outcome, 'aborted')
      assert.deepEqual([result.started, result.retired], [[], []])
    }
  },
  {
    name: 'a failure after one instance was replaced: that one stays replaced, no id to give back to a retired worker',
    from: reload(6),
    event: observe({ o0: view(null, { status: 'stopped', removed: true }), o1: O1, n0: view(200), n1: view(null, { status: 'waiting', lastExit: { code: 1, signal: null, at: T + 70 } }) }),
    now: T + 70,
    phase: 'aborting',
    effects: ['report:retired', 'renumber:n1=8', 'renumber:o1=1', 'stop:n1 drain'],
    check: (s) => {
      assert.deepEqual(s.started, [], 'the ready ones are counted once the failed ones are gone')
      assert.deepEqual(s.failed, [{ id: SPARE + 1, instance: 1, pid: 201 }])
    }
  },
  {
    name: 'a new worker ready in the pass that finds another failed: counted as started, not reported ready',
    from: after([[T, observe({ o0: O0, o1: O1 })], [T, started('n0', 0, 200, SPARE)], [T, started('n1', 1, 201, SPARE + 1)]], { setup: setup({ limits: { surge: 2, maxUnavailable: 0 } }) }),
    event: observe({ o0: O0, o1: O1, n0: view(200), n1: view(null, { status: 'waiting', lastExit: { code: 1, signal: null, at: T + 5 } }) }),
    now: T + 5,
    phase: 'aborting',
    effects: ['renumber:n1=8', 'renumber:o1=1', 'stop:n1 drain'],
    check: (s) => assert.equal(freshOf(s, 'n0')?.stage, 'ready')
  },
  {
    name: 'several failed: removed one at a time, the next once the one before is gone',
    from: after([[T, observe({ o0: O0, o1: O1 })], [T, started('n0', 0, 200, SPARE)], [T, started('n1', 1, 201, SPARE + 1)], [T + LISTEN, observe({ o0: O0, o1: O1, n0: starting(200), n1: starting(201) })]], { setup: setup({ limits: { surge: 2, maxUnavailable: 0 } }) }),
    event: observe({ o0: O0, o1: O1, n0: view(null, { status: 'stopped', removed: true }), n1: starting(201, { status: 'stopping' }) }),
    now: T + LISTEN + 10,
    phase: 'aborting',
    effects: ['renumber:n1=8', 'renumber:o1=1', 'stop:n1 drain'],
    check: (s) => assert.deepEqual(s.failed.map((f) => f.instance), [0, 1])
  },
  {
    name: 'limits that allow no step: abort, nothing started',
    from: after([], { setup: setup({ limits: { surge: 0, maxUnavailable: 0 } }) }),
    event: observe({ o0: O0, o1: O1 }),
    now: T,
    phase: 'done',
    effects: [],
    check: (s) => assert.equal(s.reason, 'the rollout cannot progress (check --surge and --max-unavailable)')
  },

  // Readiness: wait_ready, the gate, a readiness probe.
  {
    name: 'wait_ready: listening is not ready',
    from: after(N0_STARTING, { setup: setup({ config: { ...CONFIG, wait_ready: true } }) }),
    event: observe({ o0: O0, o1: O1, n0: starting(200, { listening: true }) }),
    now: T + 20,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'wait_ready, not sent in time: the reason says "ready" was never sent',
    from: after(N0_STARTING, { setup: setup({ config: { ...CONFIG, wait_ready: true } }) }),
    event: observe({ o0: O0, o1: O1, n0: starting(200, { listening: true }) }),
    now: T + LISTEN,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.match(String(s.reason), /it never sent "ready"/)
  },
  {
    name: 'gate: a wait_ready worker started while others serve is gated',
    from: after([], { setup: setup({ gate: true }) }),
    event: observe({ o0: O0, o1: O1 }),
    now: T,
    phase: 'rolling',
    effects: ['start:n0 id=0 renumber=o0 restarts=4 gate'],
    check: (s) => assert.equal(freshOf(s, 'n0')?.gated, true)
  },
  {
    name: 'gate: nothing online, nothing to gate against',
    from: after([], { setup: setup({ gate: true }) }),
    event: observe({ o0: view(100, { status: 'errored' }), o1: view(101, { status: 'errored' }) }),
    now: T,
    phase: 'rolling',
    effects: ['start:n0 id=0 renumber=o0 restarts=1', 'start:n1 id=1 renumber=o1 restarts=1']
  },
  {
    name: 'gate: opened once the worker is ready',
    from: after(N0_STARTING, { setup: setup({ gate: true, config: { ...CONFIG, wait_ready: true } }) }),
    event: observe({ o0: O0, o1: O1, n0: view(200, { ready: true }) }),
    now: T + 40,
    phase: 'rolling',
    effects: ['open:n0', 'report:ready', 'stop:o0 drain']
  },
  {
    name: 'readiness probe: online is not enough while the probe fails',
    from: after(N0_STARTING, { setup: setup({ config: { ...CONFIG, readiness: PROBE } }) }),
    event: observe({ o0: O0, o1: O1, n0: view(200, { probeReady: false }) }),
    now: T + 40,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'readiness probe never passed: its last verdict is in the reason',
    from: after(N0_STARTING, { setup: setup({ config: { ...CONFIG, readiness: PROBE } }) }),
    event: observe({ o0: O0, o1: O1, n0: starting(200, { probe: 'HTTP 503' }) }),
    now: T + LISTEN,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0 drain'],
    check: (s) => assert.match(String(s.reason), /it never passed its readiness probe \(last: HTTP 503\)/)
  },
  {
    name: 'an app that never listens: a new worker is ready once online',
    from: after(N0_STARTING, { setup: setup({ expectListen: false }) }),
    event: observe({ o0: O0, o1: O1, n0: view(200, { listening: false }) }),
    now: T + 600,
    phase: 'rolling',
    effects: ['report:ready', 'stop:o0 drain']
  },

  // Retiring: drain or not.
  {
    name: 'an old worker that does not serve is retired at once, without a drain',
    from: reload(0),
    event: observe({ o0: O0, o1: view(null, { status: 'waiting', restarts: 3 }) }),
    now: T,
    phase: 'rolling',
    effects: ['start:n0 id=0 renumber=o0 restarts=4', 'start:n1 id=1 renumber=o1 restarts=4'],
    check: (s) => assert.deepEqual(s.pending?.retire, ['o1'])
  },
  {
    name: 'an old worker that cannot be drained (fork mode, no held socket) gets the plain stop ladder',
    from: after(N0_STARTING, { old: [old(0, { drainable: false }), old(1, { drainable: false })] }),
    event: observe({ o0: O0, o1: O1, n0: view(200) }),
    now: T + 50,
    phase: 'rolling',
    effects: ['report:ready', 'stop:o0']
  },
  {
    name: 'a failed new worker in fork mode is stopped without a drain',
    from: after(N0_STARTING, { setup: setup({ config: { ...CONFIG, exec_mode: 'fork' } }) }),
    event: observe({ o0: O0, o1: O1, n0: starting(200) }),
    now: T + LISTEN,
    phase: 'aborting',
    effects: ['renumber:n0=7', 'renumber:o0=0', 'stop:n0']
  },
  {
    name: 'max unavailable 1: a start and a retire in one step; the retire shows the spare id the start gave',
    from: after([[T, observe({ o0: O0, o1: O1 })]], { setup: setup({ limits: { surge: 1, maxUnavailable: 1 } }) }),
    event: started('n0', 0, 200, SPARE),
    now: T,
    phase: 'rolling',
    effects: ['report:start', 'report:retire', 'stop:o0 drain'],
    check: (s, effects) => assert.deepEqual(progress(effects, 'retire'), [{ phase: 'retire', retiring: [{ id: SPARE, instance: 0, pid: 100 }] }])
  },

  // Scale.
  {
    name: 'scale up 2 → 4: two new workers at once, no predecessor',
    from: after([], { setup: setup({ instances: [2, 3] }), old: [] }),
    event: observe({}, 2),
    now: T,
    phase: 'rolling',
    effects: ['start:n2 id=null renumber=null restarts=null', 'start:n3 id=null renumber=null restarts=null']
  },
  {
    name: 'scale up: done once they are ready',
    from: after([[T, observe({}, 2)], [T, started('n2', 5, 202)], [T, started('n3', 6, 203)]], { setup: setup({ instances: [2, 3] }), old: [] }),
    event: observe({ n2: view(202), n3: view(203) }, 4),
    now: T + 40,
    phase: 'done',
    effects: ['report:ready', 'report:ready'],
    check: (s, effects) => {
      assert.deepEqual(progress(effects, 'ready').map((p) => [p.id, p.ready, p.total]), [[5, 1, 2], [6, 2, 2]])
      assert.equal(resultOf(s).outcome, 'done')
    }
  },
  {
    name: 'scale down 4 → 2: the two highest instances are drained at once',
    from: after([], { setup: setup({ instances: [] }), old: [old(3), old(2)] }),
    event: observe({ o3: view(103), o2: view(102) }, 4),
    now: T,
    phase: 'rolling',
    effects: ['report:retire', 'stop:o3 drain', 'stop:o2 drain']
  },
  {
    name: 'scale down: done once both are gone',
    from: after([[T, observe({ o3: view(103), o2: view(102) }, 4)]], { setup: setup({ instances: [] }), old: [old(3), old(2)] }),
    event: observe({ o3: view(null, { status: 'stopped', removed: true }), o2: view(null, { status: 'stopped', removed: true }) }, 2),
    now: T + 300,
    phase: 'done',
    effects: ['report:retired', 'report:retired'],
    check: (s) => assert.deepEqual(resultOf(s).retired, [{ id: 3, instance: 3, pid: 103 }, { id: 2, instance: 2, pid: 102 }])
  },
  {
    name: 'replace one worker: its predecessor, already gone, keeps no spare id',
    from: after([], { setup: setup({ instances: [1] }), old: [old(1)] }),
    event: observe({ o1: view(null, { status: 'stopped', removed: true, restarts: 2 }) }, 1),
    now: T,
    phase: 'rolling',
    effects: ['start:n1 id=1 renumber=null restarts=3']
  },

  // Long-lived connections (WebSocket, SSE): a retiring worker whose drain has left only
  // those is told to shut down at once, in any phase; once.
  {
    name: 'a retiring worker left with only long-lived connections is told to shut down at once',
    from: reload(6),
    event: observe({ o0: view(100, { status: 'stopping', restarts: 3, lingering: 12 }), o1: O1, n0: view(200), n1: starting(201) }),
    now: T + 55,
    phase: 'rolling',
    effects: ['shut-down:o0', 'report:lingering'],
    check: (s, effects) => {
      assert.deepEqual(progress(effects, 'lingering'), [{ phase: 'lingering', id: SPARE, instance: 0, pid: 100, connections: 12 }])
      assert.equal(oldOf(s, 'o0')?.told, true)
      assert.equal(oldOf(s, 'o0')?.stage, 'retiring', 'still waited for until it is gone')
    }
  },
  {
    name: 'told once: the same observation again asks for nothing',
    from: after([...RELOAD.slice(0, 6), [T + 55, observe({ o0: view(100, { status: 'stopping', restarts: 3, lingering: 12 }), o1: O1, n0: view(200), n1: starting(201) })]]),
    event: observe({ o0: view(100, { status: 'stopping', restarts: 3, lingering: 12 }), o1: O1, n0: view(200), n1: starting(201) }),
    now: T + 56,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'a retiring worker still draining HTTP (nothing lingering yet) is left to its drain',
    from: reload(6),
    event: observe({ o0: view(100, { status: 'stopping', restarts: 3 }), o1: O1, n0: view(200), n1: starting(201) }),
    now: T + 55,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'told while a start is still to be answered',
    from: reload(5),
    event: observe({ o0: view(100, { status: 'stopping', restarts: 3, lingering: 1 }), o1: O1, n0: view(200) }),
    now: T + 51,
    phase: 'rolling',
    effects: ['shut-down:o0', 'report:lingering'],
    check: (s) => assert.deepEqual(s.pending?.starts, ['n1'], 'the start is still awaited')
  },
  {
    name: 'the last old worker is told in the finishing phase',
    from: reload(8),
    event: observe({ o0: view(null, { status: 'stopped', removed: true }), o1: view(101, { status: 'stopping', restarts: 3, lingering: 3 }), n0: view(200), n1: view(201) }),
    now: T + 95,
    phase: 'finishing',
    effects: ['shut-down:o1', 'report:lingering']
  },
  {
    name: 'an old worker not being retired is never told, whatever it reports',
    from: reload(3),
    event: observe({ o0: view(100, { restarts: 3, lingering: 5 }), o1: O1, n0: starting(200) }),
    now: T + 20,
    phase: 'rolling',
    effects: []
  },
  {
    name: 'a retiring worker that has left its app is not told',
    from: reload(6),
    event: observe({ o0: view(null, { status: 'stopped', removed: true, lingering: 2 }), o1: O1, n0: view(200), n1: starting(201) }),
    now: T + 55,
    phase: 'rolling',
    effects: ['report:retired']
  },
]

describe('step', () => {
  for (const c of cases) {
    test(`${c.from.phase} + ${c.event.type}: ${c.name}`, () => {
      const from = structuredClone(c.from)
      const before = structuredClone(from)
      const { state, effects } = step(from, c.event, c.now)
      assert.equal(state.phase, c.phase)
      assert.deepEqual(effects.map(describeEffect), c.effects)
      c.check?.(state, effects)
      assert.deepEqual(from, before, 'the input state is not mutated')
    })
  }
})

describe('a rollout, event by event', () => {
  test('a 2-worker reload: never fewer than 2 ready workers, never more than 3 up', () => {
    let state = initialState(setup(), [old(0), old(1)])
    /** @type {string[]} */
    const seen = []
    for (const [now, event] of RELOAD) {
      const result = step(state, event, now)
      state = result.state
      seen.push(...result.effects.map(describeEffect))
      if (event.type !== 'observe') continue
      const views = Object.values(event.views)
      assert.ok(views.filter((v) => v.status === 'online').length >= 2, `at ${now - T} ms: 2 ready`)
      assert.ok(views.filter((v) => !v.removed && v.status !== 'stopped').length <= 3, `at ${now - T} ms: at most 3 up`)
    }
    assert.deepEqual(seen, [
      'start:n0 id=0 renumber=o0 restarts=4', 'report:start',
      'report:ready', 'stop:o0 drain',
      'start:n1 id=1 renumber=o1 restarts=4', 'report:start',
      'report:retired',
      'report:ready', 'stop:o1 drain',
      'report:retired'
    ])
    assert.equal(state.phase, 'done')
    assert.equal(resultOf(state).outcome, 'done')
  })

  test('a 1-worker app: its successor is ready before it goes', () => {
    const steps = /** @type {Array<[number, RollEvent]>} */ ([
      [T, observe({ o0: O0 })],
      [T, started('n0', 0, 200, SPARE)],
      [T + 40, observe({ o0: O0, n0: view(200) })]
    ])
    const state = after(steps, { setup: setup({ instances: [0] }), old: [old(0)] })
    assert.equal(oldOf(state, 'o0')?.stage, 'retiring')
    const done = after([...steps, [T + 90, observe({ o0: view(null, { status: 'stopped', removed: true }), n0: view(200) })]], { setup: setup({ instances: [0] }), old: [old(0)] })
    assert.deepEqual(resultOf(done), { outcome: 'done', reason: null, started: [{ id: 0, instance: 0, pid: 200 }], retired: [{ id: SPARE, instance: 0, pid: 100 }], failed: [] })
  })
})
