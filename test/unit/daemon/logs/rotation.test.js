// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { expiredRotations, formatStamp, listRotated, parseRotated, rotatedPath } from '../../../../daemon/logs/rotation.js'

const T = Date.UTC(2026, 10, 23, 6, 7, 8, 9)

describe('rotatedPath', () => {
  /** @type {Array<[string, number, number, string]>} */
  const cases = [
    ['/l/api-out.log', T, 0, '/l/api-out__2026-11-23_06-07-08-009.log'],
    ['/l/api-out.log', T, 2, '/l/api-out__2026-11-23_06-07-08-009_2.log'],
    ['/l/api-errors', T, 0, '/l/api-errors__2026-11-23_06-07-08-009'],
    ['/l/api.v2.log', T, 0, '/l/api.v2__2026-11-23_06-07-08-009.log']
  ]
  for (const [path, time, seq, expected] of cases) {
    test(`${path} seq ${seq} -> ${expected}`, () => assert.equal(rotatedPath(path, time, seq), expected))
  }
  test('the stamp is UTC and sorts as text in time order', () => {
    assert.equal(formatStamp(T), '2026-11-23_06-07-08-009')
    assert.ok(formatStamp(T) < formatStamp(T + 1) && formatStamp(T + 1) < formatStamp(T + 86_400_000))
  })
})

describe('parseRotated', () => {
  /** @type {Array<[string, string, ReturnType<typeof parseRotated>]>} */
  const cases = [
    ['/l/api-out.log', 'api-out__2026-11-23_06-07-08-009.log', { name: 'api-out__2026-11-23_06-07-08-009.log', stamp: '2026-11-23_06-07-08-009', seq: 0, gz: false }],
    ['/l/api-out.log', 'api-out__2026-11-23_06-07-08-009_3.log.gz', { name: 'api-out__2026-11-23_06-07-08-009_3.log.gz', stamp: '2026-11-23_06-07-08-009', seq: 3, gz: true }],
    ['/l/api-out.log', 'api-out.log', null],
    ['/l/api-out.log', 'api-out-0__2026-11-23_06-07-08-009.log', null],
    ['/l/api-out.log', 'api-out__2026-11-23_06-07-08-009.log.gz.tmp', null],
    ['/l/api-out.log', 'api-out__2026-11-23.log', null],
    ['/l/a.b.log', 'a.b__2026-11-23_06-07-08-009.log', { name: 'a.b__2026-11-23_06-07-08-009.log', stamp: '2026-11-23_06-07-08-009', seq: 0, gz: false }],
    ['/l/a.b.log', 'aXb__2026-11-23_06-07-08-009.log', null]
  ]
  for (const [path, name, expected] of cases) {
    test(`${name} of ${path}`, () => assert.deepEqual(parseRotated(path, name), expected))
  }
})

describe('retention', () => {
  const path = '/l/api-out.log'
  const at = (/** @type {number} */ ms, seq = 0, gz = false) => rotatedPath(path, T + ms, seq).slice(3) + (gz ? '.gz' : '')
  const names = [at(2000), 'api-out.log', at(0), at(0, 1), at(0, 10), at(1000, 0, true), 'other.log']

  test('lists rotations oldest first, sequence numbers in numeric order', () => {
    assert.deepEqual(listRotated(path, names).map((f) => f.name), [at(0), at(0, 1), at(0, 10), at(1000, 0, true), at(2000)])
  })

  /** @type {Array<[number, string[]]>} */
  const cases = [
    [10, []],
    [5, []],
    [3, [at(0), at(0, 1)]],
    [1, [at(0), at(0, 1), at(0, 10), at(1000, 0, true)]],
    [0, [at(0), at(0, 1), at(0, 10), at(1000, 0, true), at(2000)]]
  ]
  for (const [retain, expected] of cases) {
    test(`retain ${retain}`, () => assert.deepEqual(expiredRotations(path, names, retain), expected))
  }

  test('a plain file whose .gz exists is deleted, and counted once', () => {
    const pair = [at(0), at(0, 0, true), at(1000)]
    assert.deepEqual(expiredRotations(path, pair, 2), [at(0)])
    assert.deepEqual(expiredRotations(path, pair, 1), [at(0), at(0, 0, true)])
  })
})
