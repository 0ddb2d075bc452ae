// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DEFAULT_LIMITS, checkLimits, freeInstances, planRollStep, resolveScale } from '../../../../daemon/rollout/plan.js'

/** An old worker: id = 100 + instance unless given. @param {number} instance @param {Partial<{ id: number, serving: boolean }>} [o] */
const old = (instance, o = {}) => ({ id: o.id ?? 100 + instance, instance, serving: o.serving ?? true })

/**
 * @typedef {object} Case
 * @property {string} name
 * @property {import('../../../../daemon/rollout/plan.js').RollState} state
 * @property {import('../../../../daemon/rollout/plan.js').RollLimits} [limits]
 * @property {{ start: number[], retire: number[], done: boolean }} step
 */

/** @type {Case[]} */
const cases = [
  // The default: surge 1, max unavailable 0 (design §4).
  { name: '2 workers: start one new worker first, retire nothing', state: { old: [old(0), old(1)], instances: [0, 1], ready: [], starting: [] }, step: { start: [0], retire: [], done: false } },
  { name: '2 workers: while the new one starts, wait', state: { old: [old(0), old(1)], instances: [0, 1], ready: [], starting: [0] }, step: { start: [], retire: [], done: false } },
  { name: '2 workers: new one ready, retire the worker it replaces', state: { old: [old(0), old(1)], instances: [0, 1], ready: [0], starting: [] }, step: { start: [], retire: [100], done: false } },
  { name: '2 workers: one replaced, start the next', state: { old: [old(1)], instances: [0, 1], ready: [0], starting: [] }, step: { start: [1], retire: [], done: false } },
  { name: '2 workers: second new one ready, retire the last old one', state: { old: [old(1)], instances: [0, 1], ready: [0, 1], starting: [] }, step: { start: [], retire: [101], done: false } },
  { name: '2 workers: all replaced is done', state: { old: [], instances: [0, 1], ready: [0, 1], starting: [] }, step: { start: [], retire: [], done: true } },
  { name: '1 worker: its successor comes up before it goes', state: { old: [old(0)], instances: [0], ready: [], starting: [] }, step: { start: [0], retire: [], done: false } },
  { name: '1 worker: successor ready, retire it', state: { old: [old(0)], instances: [0], ready: [0], starting: [] }, step: { start: [], retire: [100], done: false } },

  // Other limits.
  { name: 'surge 2 starts two at once', limits: { surge: 2, maxUnavailable: 0 }, state: { old: [old(0), old(1), old(2)], instances: [0, 1, 2], ready: [], starting: [] }, step: { start: [0, 1], retire: [], done: false } },
  { name: 'surge 0, max unavailable 1: retire first, lowest instance', limits: { surge: 0, maxUnavailable: 1 }, state: { old: [old(0), old(1)], instances: [0, 1], ready: [], starting: [] }, step: { start: [], retire: [100], done: false } },
  { name: 'surge 0, max unavailable 1: then start its replacement', limits: { surge: 0, maxUnavailable: 1 }, state: { old: [old(1)], instances: [0, 1], ready: [], starting: [] }, step: { start: [0], retire: [], done: false } },
  { name: 'max unavailable 1 with surge 1: start one and retire one at once', limits: { surge: 1, maxUnavailable: 1 }, state: { old: [old(0), old(1)], instances: [0, 1], ready: [], starting: [] }, step: { start: [0], retire: [100], done: false } },

  // Old workers that do not serve hold no capacity.
  { name: 'a crashed old worker is retired at once', state: { old: [old(0), old(1, { serving: false })], instances: [0, 1], ready: [], starting: [] }, step: { start: [0, 1], retire: [101], done: false } },
  { name: 'a stopped app: all new workers start, the stopped ones go', state: { old: [old(0, { serving: false }), old(1, { serving: false })], instances: [0, 1], ready: [], starting: [] }, step: { start: [0, 1], retire: [100, 101], done: false } },

  // Changed sizes (reload with a config file, scale).
  { name: 'config grows 2 → 4: three start (4 + surge 1 - 2 serving)', state: { old: [old(0), old(1)], instances: [0, 1, 2, 3], ready: [], starting: [] }, step: { start: [0, 1, 2], retire: [], done: false } },
  { name: 'config shrinks 3 → 1: the extra old workers go first, highest first', state: { old: [old(0), old(1), old(2)], instances: [0], ready: [], starting: [] }, step: { start: [], retire: [102, 101], done: false } },
  { name: 'config shrinks 3 → 1: then the remaining one is replaced', state: { old: [old(0)], instances: [0], ready: [], starting: [] }, step: { start: [0], retire: [], done: false } },
  { name: 'scale up 2 → 4: both new workers start at once', state: { old: [], instances: [2, 3], ready: [], starting: [] }, step: { start: [2, 3], retire: [], done: false } },
  { name: 'scale up: done once they are ready', state: { old: [], instances: [2, 3], ready: [2, 3], starting: [] }, step: { start: [], retire: [], done: true } },
  { name: 'scale down 4 → 1: the three go at once', state: { old: [old(3), old(2), old(1)], instances: [], ready: [], starting: [] }, step: { start: [], retire: [103, 102, 101], done: false } },
  { name: 'scale down: done once they are retired', state: { old: [], instances: [], ready: [], starting: [] }, step: { start: [], retire: [], done: true } },

  // Replacing one worker of several (reload <id>, max_memory_restart).
  { name: 'replace instance 1 only: its successor first', state: { old: [old(1, { id: 7 })], instances: [1], ready: [], starting: [] }, step: { start: [1], retire: [], done: false } },
  { name: 'replace instance 1 only: then it goes', state: { old: [old(1, { id: 7 })], instances: [1], ready: [1], starting: [] }, step: { start: [], retire: [7], done: false } }
]

describe('planRollStep', () => {
  for (const c of cases) {
    test(c.name, () => {
      assert.deepEqual(planRollStep(c.state, c.limits ?? DEFAULT_LIMITS), c.step)
    })
  }

  test('the default rollout never has fewer ready workers than it began with, nor more than one extra', () => {
    // Drive a 4-worker reload to its end, new workers becoming ready one step after they start.
    let state = { old: [0, 1, 2, 3].map((i) => old(i)), instances: [0, 1, 2, 3], ready: /** @type {number[]} */ ([]), starting: /** @type {number[]} */ ([]) }
    for (let steps = 0; steps < 50; steps++) {
      const ready = state.old.filter((w) => w.serving).length + state.ready.length
      assert.ok(ready >= 4, `step ${steps}: ${ready} ready`)
      assert.ok(state.old.length + state.ready.length + state.starting.length <= 5)
      const step = planRollStep(state, DEFAULT_LIMITS)
      if (step.done) return
      state = {
        ...state,
        old: state.old.filter((w) => !step.retire.includes(w.id)),
        ready: [...state.ready, ...state.starting],
        starting: step.start
      }
    }
    assert.fail('the rollout did not finish in 50 steps')
  })
})

describe('checkLimits', () => {
  const rows = /** @type {Array<[number, number, RegExp | null]>} */ ([
    [1, 0, null],
    [0, 1, null],
    [3, 2, null],
    [0, 0, /cannot both be 0/],
    [-1, 0, /surge must be a whole number/],
    [1.5, 0, /surge must be a whole number/],
    [1, -2, /max unavailable must be a whole number/]
  ])
  for (const [surge, maxUnavailable, problem] of rows) {
    test(`surge ${surge}, max unavailable ${maxUnavailable}`, () => {
      const found = checkLimits({ surge, maxUnavailable })
      if (problem === null) assert.equal(found, null)
      else assert.match(String(found), problem)
    })
  }
})

describe('resolveScale', () => {
  const rows = /** @type {Array<[string, number, number | RegExp]>} */ ([
    ['4', 2, 4],
    ['+2', 2, 4],
    ['-1', 2, 1],
    [' 3 ', 1, 3],
    ['2', 2, 2],
    ['-2', 2, /leaves 0 workers/],
    ['0', 2, /leaves 0 workers/],
    ['+1024', 1, /makes 1025 workers/],
    ['two', 2, /use a number/],
    ['1.5', 2, /use a number/],
    ['', 2, /use a number/]
  ])
  for (const [spec, current, expected] of rows) {
    test(`"${spec}" from ${current}`, () => {
      const result = resolveScale(spec, current)
      if (typeof expected === 'number') assert.deepEqual(result, { to: expected })
      else assert.match('error' in result ? result.error : '', expected)
    })
  }
})

describe('freeInstances', () => {
  test('takes the lowest numbers nobody holds', () => {
    assert.deepEqual(freeInstances([0, 1], 2), [2, 3])
    assert.deepEqual(freeInstances([0, 2, 3], 2), [1, 4])
    assert.deepEqual(freeInstances([], 1), [0])
    assert.deepEqual(freeInstances([1], 0), [])
  })
})
