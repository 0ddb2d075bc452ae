// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { LogRing } from '../../../../daemon/logs/ring.js'

/** @typedef {import('../../../../daemon/logs/ring.js').LogEntry} LogEntry */

/**
 * Entry number `n`: odd numbers on stderr, instance n % 2.
 * @param {number} n
 * @returns {LogEntry}
 */
const entry = (n) => ({ time: n, app: 'api', id: n % 2, instance: n % 2, stream: n % 2 ? 'err' : 'out', line: `line ${n}` })

/**
 * A ring of `capacity` after pushing entries 1..pushed.
 * @param {number} capacity
 * @param {number} pushed
 */
function ringWith (capacity, pushed) {
  const ring = new LogRing(capacity)
  for (let n = 1; n <= pushed; n++) ring.push(entry(n))
  return ring
}

const times = (/** @type {LogEntry[]} */ entries) => entries.map((e) => e.time)
const isErr = (/** @type {LogEntry} */ e) => e.stream === 'err'

describe('LogRing', () => {
  /** @type {Array<[string, number, number, number, ((e: LogEntry) => boolean) | undefined, number[]]>} [name, capacity, pushed, last n, filter, expected times] */
  const cases = [
    ['empty', 3, 0, 5, undefined, []],
    ['not yet full, all', 5, 3, 10, undefined, [1, 2, 3]],
    ['not yet full, the newest 2', 5, 3, 2, undefined, [2, 3]],
    ['exactly full', 3, 3, 3, undefined, [1, 2, 3]],
    ['wrapped once: the oldest is dropped', 3, 4, 3, undefined, [2, 3, 4]],
    ['wrapped many times: oldest first', 3, 11, 3, undefined, [9, 10, 11]],
    ['wrapped, ask for more than it holds', 3, 7, 100, undefined, [5, 6, 7]],
    ['wrapped, the newest 1', 4, 10, 1, undefined, [10]],
    ['zero lines', 3, 3, 0, undefined, []],
    ['filter: newest 2 matching, oldest first', 10, 10, 2, isErr, [7, 9]],
    ['filter: wrapped', 4, 9, 10, isErr, [7, 9]],
    ['filter: nothing matches', 4, 9, 10, () => false, []],
    ['capacity 1 keeps the newest', 1, 5, 5, undefined, [5]]
  ]

  for (const [name, capacity, pushed, n, filter, expected] of cases) {
    test(`${name} (capacity ${capacity}, ${pushed} pushed, last ${n})`, () => {
      assert.deepEqual(times(ringWith(capacity, pushed).last(n, filter)), expected)
    })
  }

  test('never holds more than its capacity', () => {
    const ring = ringWith(3, 100)
    assert.equal(ring.size, 3)
    assert.equal(ring.capacity, 3)
  })

  test('a long run keeps the array it uses small', () => {
    const ring = ringWith(10, 100_000)
    assert.ok(ring.items.length <= 2 * 1024 + 10, `${ring.items.length} slots`)
    assert.deepEqual(times(ring.last(3)), [99_998, 99_999, 100_000])
  })

  test('bounded in characters too: the oldest lines go first, the newest always stays', () => {
    const ring = new LogRing(100, 20)
    for (const n of [1, 2, 3]) ring.push({ ...entry(n), line: 'x'.repeat(8) })
    assert.deepEqual(times(ring.last(10)), [2, 3])
    assert.equal(ring.chars, 16)
    ring.push({ ...entry(4), line: 'y'.repeat(50) })
    assert.deepEqual(times(ring.last(10)), [4])
    ring.clear()
    assert.equal(ring.chars, 0)
  })

  test('keeps the entries as pushed', () => {
    const ring = ringWith(2, 3)
    assert.deepEqual(ring.last(2), [entry(2), entry(3)])
  })

  test('clear empties it, and it fills again in order', () => {
    const ring = ringWith(3, 5)
    ring.clear()
    assert.deepEqual(ring.last(10), [])
    for (let n = 20; n <= 24; n++) ring.push(entry(n))
    assert.deepEqual(times(ring.last(10)), [22, 23, 24])
  })
})

describe('LogRing.pushLines: chunks of whole lines, cut into entries only when read', () => {
  const source = { time: 1, app: 'api', id: 0, instance: 0, stream: /** @type {const} */ ('out') }
  const lines = (/** @type {LogRing} */ ring, n = 100) => ring.last(n).map((e) => e.line)

  test('within capacity: every line, in order, chunks and single entries mixed', () => {
    const ring = new LogRing(10)
    ring.pushLines(source, Buffer.from('a\nb\n'))
    ring.push({ ...source, line: 'c' })
    ring.pushLines(source, Buffer.from('d\n\ne\n'))
    assert.deepEqual(lines(ring), ['a', 'b', 'c', 'd', '', 'e'])
    assert.equal(ring.size, 6)
    assert.deepEqual(lines(ring, 2), ['', 'e'])
  })

  test('over capacity: exactly the newest lines stay, cut out of the oldest chunk', () => {
    const ring = new LogRing(3)
    ring.pushLines(source, Buffer.from('1\n2\n'))
    ring.pushLines(source, Buffer.from('3\n4\n'))
    assert.deepEqual(lines(ring), ['2', '3', '4'])
    assert.equal(ring.size, 3)
    ring.pushLines(source, Buffer.from('5\n6\n7\n8\n'))
    assert.deepEqual(lines(ring), ['6', '7', '8'])
    assert.equal(ring.size, 3)
  })

  test('the character bound cuts whole lines; the newest line always stays; a filter sees each line', () => {
    const ring = new LogRing(100, 6)
    ring.pushLines(source, Buffer.from('aaa\nbbb\nccc\n'))
    assert.deepEqual(lines(ring), ['bbb', 'ccc'])
    ring.pushLines({ ...source, stream: 'err' }, Buffer.from('0123456789\n'))
    assert.deepEqual(lines(ring), ['0123456789'])
    assert.deepEqual(ring.last(5, (e) => e.stream === 'out'), [])
    assert.equal(ring.chars, 10)
  })

  test('a small piece of a big buffer is copied, not kept with it', () => {
    const ring = new LogRing(10)
    const big = Buffer.alloc(64 * 1024, 0x61)
    big[10] = 0x0a
    ring.pushLines(source, big.subarray(0, 11))
    big[0] = 0x62 // the reader's buffer changes afterwards: the ring's copy does not
    assert.deepEqual(lines(ring), ['a'.repeat(10)])
  })
})
