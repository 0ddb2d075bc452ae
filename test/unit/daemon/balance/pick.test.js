// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { leastConnected } from '../../../../daemon/balance/pick.js'
import { Sessions } from '../../../../daemon/balance/sessions.js'

describe('leastConnected', () => {
  const m = (/** @type {string} */ name, /** @type {number} */ open) => ({ name, open })
  /** @type {Array<[string, number[], number, string[], string | null]>} */
  const cases = [
    ['the one with the fewest', [3, 1, 2], 0, [], 'b'],
    ['ties start at the turn', [1, 1, 1], 1, [], 'b'],
    ['ties wrap around', [1, 1, 1], 5, [], 'c'],
    ['the fewest wins whatever the turn', [0, 4, 4], 2, [], 'a'],
    ['a member that declined is skipped', [0, 1, 2], 0, ['a'], 'b'],
    ['all declined: none', [0, 1], 0, ['a', 'b'], null],
    ['no members: none', [], 0, [], null]
  ]
  for (const [what, opens, turn, declined, expected] of cases) {
    test(what, () => {
      const members = opens.map((open, i) => m('abc'[i], open))
      assert.equal(leastConnected(members, turn, (x) => !declined.includes(x.name))?.name ?? null, expected)
    })
  }

  test('a burst spreads evenly when each pick is counted', () => {
    const members = [m('a', 0), m('b', 0), m('c', 5)]
    for (let turn = 0; turn < 16; turn++) /** @type {{ open: number }} */ (leastConnected(members, turn)).open++
    assert.deepEqual(members.map((x) => x.open), [7, 7, 7])
  })
})

describe('Sessions', () => {
  test('a key maps to its value until it has not been used for the ttl', () => {
    const s = new Sessions({ ttlMs: 100 })
    s.set('sid:a', 'w1', 0)
    assert.equal(s.get('sid:a', 90), 'w1')
    assert.equal(s.get('sid:a', 180), 'w1', 'each use renews it')
    assert.equal(s.get('sid:a', 281), undefined)
    assert.equal(s.size, 0)
  })

  test('bounded: the least recently used go first', () => {
    const s = new Sessions({ max: 2 })
    s.set('a', 1, 0)
    s.set('b', 2, 0)
    s.get('a', 1)
    s.set('c', 3, 2)
    assert.deepEqual([s.get('a', 3), s.get('b', 3), s.get('c', 3)], [1, undefined, 3])
  })

  test('forget drops every session of a worker that is gone', () => {
    const s = new Sessions()
    s.set('a', 'w1', 0)
    s.set('b', 'w2', 0)
    s.set('c', 'w1', 0)
    s.forget('w1')
    assert.deepEqual([s.get('a', 1), s.get('b', 1), s.get('c', 1)], [undefined, 'w2', undefined])
  })
})
