// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { LineQueue, countLines } from '../../../../daemon/logs/queue.js'

const b = (/** @type {string} */ text) => Buffer.from(text)
/** A queue holding `chunks`. @param {string[]} chunks */
function queueOf (chunks, maxQueued = 1000) {
  const queue = new LineQueue({ maxQueued })
  for (const chunk of chunks) queue.push(b(chunk), 'full')
  return queue
}

describe('countLines', () => {
  /** @type {Array<[string, number]>} */
  const cases = [['', 0], ['a\n', 1], ['a\nb\n', 2], ['a\nb', 2], ['\n\n', 2]]
  for (const [text, lines] of cases) test(JSON.stringify(text), () => assert.equal(countLines(b(text)), lines))
})

describe('LineQueue.take', () => {
  /** @type {Array<[string, string[], number, boolean, string, string[]]>} [name, queued, room, fileEmpty, taken, left] */
  const cases = [
    ['everything fits', ['a\n', 'bb\n'], 100, false, 'a\nbb\n', []],
    ['stops before a chunk that does not fit', ['aaaa\n', 'bbbb\n'], 7, false, 'aaaa\n', ['bbbb\n']],
    ['cuts a chunk at its last whole line', ['a\nb\ncccc\n'], 5, false, 'a\nb\n', ['cccc\n']],
    ['cuts exactly at the room', ['ab\ncd\n'], 3, false, 'ab\n', ['cd\n']],
    ['no whole line fits a file with content: nothing', ['abcdef\n'], 3, false, '', ['abcdef\n']],
    ['no room at all: nothing', ['a\n'], 0, false, '', ['a\n']],
    ['an empty file takes one over-long line whole', ['abcdef\ngh\n'], 3, true, 'abcdef\n', ['gh\n']],
    ['an empty file takes an over-long chunk without a newline whole', ['abcdef'], 3, true, 'abcdef', []],
    ['unlimited room', ['x\n', 'y\n'], Infinity, false, 'x\ny\n', []]
  ]
  for (const [name, queued, room, fileEmpty, taken, left] of cases) {
    test(name, () => {
      const queue = queueOf(queued)
      const before = queue.queued
      assert.equal(queue.take(room, fileEmpty).toString(), taken)
      assert.deepEqual(queue.items.map(String), left)
      assert.equal(queue.queued, before - Buffer.byteLength(taken))
    })
  }
})

describe('LineQueue dropping', () => {
  test('a full queue drops, counts, and notes the gap where it happened', () => {
    const queue = queueOf(['aaaa\n'], 8)
    assert.equal(queue.push(b('bbbb\n'), 'too slow'), false)
    assert.equal(queue.push(b('cc\ndd\n'), 'too slow'), false)
    assert.equal(queue.push(b('e\n'), 'too slow'), true)
    assert.deepEqual(queue.dropped, { lines: 3, bytes: 11 })
    const written = queue.take(Infinity, false).toString()
    assert.equal(written, 'aaaa\nsup: 3 line(s) (11 bytes) dropped here: too slow\ne\n')
    assert.equal(queue.queued, 0)
  })

  test('dropAll keeps one merged note for when the file works again', () => {
    const queue = queueOf(['a\n', 'b\n'])
    queue.drop(b('c\n'), 'full')
    queue.push(b('d\n'), 'full')
    queue.dropAll('EACCES')
    assert.equal(queue.hasLines(), false)
    assert.equal(queue.empty, false)
    assert.equal(queue.queued, 0)
    assert.deepEqual(queue.dropped, { lines: 4, bytes: 8 })
    assert.deepEqual(queue.items, [{ lines: 4, bytes: 8, reason: 'EACCES' }])
  })

  test('the note is written in the app\'s format', () => {
    const queue = new LineQueue({ maxQueued: 0, formatNotice: (text) => JSON.stringify({ message: text }) })
    queue.push(b('x\n'), 'slow')
    assert.equal(queue.take(Infinity, true).toString(), '{"message":"sup: 1 line(s) (2 bytes) dropped here: slow"}\n')
  })
})
