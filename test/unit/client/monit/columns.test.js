// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { charWidth, indexAtColumn, rowStarts, textWidth } from '../../../../client/monit/columns.js'
import { Pager } from '../../../../client/monit/pager.js'

describe('columns', () => {
  test('CJK, Hangul, full-width forms and emoji take two columns; combining marks none', () => {
    /** @type {Array<[string, number]>} */
    const rows = [['a', 1], ['é', 1], ['日', 2], ['한', 2], ['Ａ', 2], ['🚀', 2], ['✅', 2], ['\u0301', 0], ['\u200b', 0], ['→', 1]]
    for (const [c, width] of rows) assert.equal(charWidth(/** @type {number} */ (c.codePointAt(0))), width, c)
    assert.equal(textWidth('ok 日本 🚀'), 10)
    assert.equal(textWidth('plain'), 5)
  })

  test('wrapping counts columns and never cuts a character in two', () => {
    assert.deepEqual(rowStarts('abcdefghij', 4, 3), [0, 4, 7])
    assert.deepEqual(rowStarts('日本語日本語', 5, 5), [0, 2, 4])
    // Each rocket is two UTF-16 units and two columns: 3 columns hold one.
    assert.deepEqual(rowStarts('🚀🚀🚀', 3, 3), [0, 2, 4])
    assert.deepEqual(rowStarts('a\u0301b', 1, 1), [0, 2], 'the accent stays with its letter')
  })

  test('scrolling sideways starts at a column', () => {
    assert.equal(indexAtColumn('abcdef', 2), 2)
    assert.equal(indexAtColumn('日本語', 2), 1)
    assert.equal(indexAtColumn('日本語', 9), 3)
  })

  test('a pager of wide lines: rows as wide as the screen, surrogate pairs whole', () => {
    /** @type {Pager<string>} */
    const pager = new Pager({ capacity: 10, textOf: (s) => s, prefixOf: () => ({ text: '> ', color: null }) })
    pager.resize(20, 10)
    pager.push('日本語のログ行です、とても長い行')
    pager.push('🚀'.repeat(12))
    const rows = pager.rows().map((r) => pager.entry(r.seq).text.slice(r.start, r.end))
    assert.deepEqual(rows, ['日本語のログ行です', '、とても長い行', '🚀'.repeat(9), '🚀'.repeat(3)])
    assert.ok(rows.every((r) => textWidth(r) <= 18))
  })
})
