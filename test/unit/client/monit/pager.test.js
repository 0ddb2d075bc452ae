// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { displayText, findAll, Pager } from '../../../../client/monit/pager.js'
import { pagerActions, pagerBindings, typeSearch } from '../../../../client/monit/pager-keys.js'
import { renderRow, renderStatus } from '../../../../client/monit/pager-render.js'
import { escapeControls } from '../../../../ipc/terminal-text.js'

const plain = { color: false, unicode: true }

/**
 * A pager of strings with a fixed prefix "> ", `lines` lines "line 0" ... on a screen of `height` rows.
 * @param {number} lines
 * @param {{ width?: number, height?: number, capacity?: number, maxChars?: number }} [options]
 */
function pagerOf (lines, { width = 40, height = 5, capacity = 100, maxChars } = {}) {
  /** @type {Pager<string>} */
  const pager = new Pager({ capacity, maxChars, textOf: (s) => s, prefixOf: () => ({ text: '> ', color: null }) })
  pager.resize(width, height)
  for (let i = 0; i < lines; i++) pager.push(`line ${i}`)
  return pager
}

/** The text of each row on screen. @param {Pager<string>} pager */
const screen = (pager) => pager.rows().map((r) => `${r.prefix ? r.prefix.text : ' '.repeat(r.indent)}${pager.entry(r.seq).text.slice(r.start, r.end)}`)

describe('Pager', () => {
  test('follows the newest lines, and PgUp shows older ones without following', () => {
    const pager = pagerOf(20)
    assert.deepEqual(screen(pager), ['> line 15', '> line 16', '> line 17', '> line 18', '> line 19'])
    pager.page(-1)
    assert.equal(pager.follow, false)
    assert.deepEqual(screen(pager), ['> line 11', '> line 12', '> line 13', '> line 14', '> line 15'])
    pager.push('line 20')
    assert.deepEqual(screen(pager)[0], '> line 11', 'a paused view stays where it is')
    assert.equal(pager.below(), 5)
    pager.end()
    assert.deepEqual(screen(pager).at(-1), '> line 20')
  })

  test('g goes to the oldest line, and scrolling stops at both ends', () => {
    const pager = pagerOf(20)
    pager.home()
    assert.deepEqual(screen(pager)[0], '> line 0')
    pager.scroll(-3)
    assert.deepEqual(screen(pager)[0], '> line 0')
    pager.page(10)
    assert.deepEqual(screen(pager), ['> line 15', '> line 16', '> line 17', '> line 18', '> line 19'])
    assert.equal(pager.follow, false, 'the end reached by paging is not following')
  })

  test('the ring keeps `capacity` items: a paused view on a dropped line moves to the oldest kept', () => {
    const pager = pagerOf(10, { capacity: 10 })
    pager.home()
    for (let i = 10; i < 13; i++) pager.push(`line ${i}`)
    assert.equal(pager.size, 10)
    assert.deepEqual(pager.items()[0], 'line 3')
    assert.deepEqual(screen(pager)[0], '> line 3')
  })

  test('and at most maxChars characters of them', () => {
    const pager = pagerOf(0, { maxChars: 20 })
    for (const s of ['a'.repeat(8), 'b'.repeat(8), 'c'.repeat(8)]) pager.push(s)
    assert.deepEqual(pager.items(), ['b'.repeat(8), 'c'.repeat(8)])
    assert.equal(pager.chars, 16)
    pager.push('d'.repeat(50))
    assert.deepEqual(pager.items(), ['d'.repeat(50)], 'one line longer than the cap is still shown')
  })

  test('wraps long lines under their prefix, and cuts them when wrap is off', () => {
    const pager = pagerOf(0, { width: 20, height: 4 })
    pager.push('0123456789abcdefghijklmnopqrstuvwxyz')
    assert.deepEqual(screen(pager), ['> 0123456789abcdefgh', '  ijklmnopqrstuvwxyz'])
    pager.toggleWrap()
    assert.deepEqual(screen(pager), ['> 0123456789abcdefgh'])
    pager.shift(10)
    assert.deepEqual(screen(pager), ['> abcdefghijklmnopqr'])
  })

  test('a line longer than the screen scrolls row by row', () => {
    const pager = pagerOf(0, { width: 12, height: 2 })
    pager.push('x'.repeat(50))
    assert.equal(pager.rowsOf(0), 5)
    assert.deepEqual(pager.rows().map((r) => r.row), [3, 4])
    pager.scroll(-2)
    assert.deepEqual(pager.rows().map((r) => r.row), [1, 2])
  })

  test('search finds every match and jumps to the one nearest the screen; n/N go round', () => {
    const pager = pagerOf(30, { height: 5 })
    pager.search('line 1')
    // line 1, 10..19; the screen showed 25..29: the newest match above it.
    assert.deepEqual(pager.matches, [1, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19])
    assert.equal(pager.current, 19)
    assert.ok(screen(pager).includes('> line 19'))
    pager.nextMatch(1)
    assert.equal(pager.current, 1, 'n after the last goes round to the first')
    assert.ok(screen(pager).includes('> line 1'))
    pager.nextMatch(1)
    assert.equal(pager.current, 10)
    pager.nextMatch(-1)
    pager.nextMatch(-1)
    assert.equal(pager.current, 19, 'N before the first goes round to the last')
    assert.deepEqual(pager.matchIndex(), { index: 11, count: 11 })
    pager.push('line 100')
    assert.equal(pager.matches.at(-1), 30, 'a new line is searched as it comes')
  })

  test('a match on the screen is taken first; from the top, the first below', () => {
    const pager = pagerOf(30, { height: 5 })
    pager.search('line 2')
    assert.equal(pager.current, 25, 'the first match on the screen (25..29)')
    pager.home()
    pager.search('line 2')
    assert.equal(pager.current, 2, 'on the screen (0..4)')
    pager.home()
    pager.search('line 1')
    assert.equal(pager.current, 1)
    pager.scroll(-99)
    pager.search('line 3')
    assert.equal(pager.current, 3)
    pager.search('line 7')
    assert.equal(pager.current, 7, 'nothing above: the first below')
  })

  test('search is case-insensitive unless the query has a capital', () => {
    assert.deepEqual(findAll('Error error ERROR', 'error'), [[0, 5], [6, 11], [12, 17]])
    assert.deepEqual(findAll('Error error ERROR', 'Error'), [[0, 5]])
    assert.deepEqual(findAll('aaaa', 'aa'), [[0, 2], [2, 4]])
    assert.deepEqual(findAll('abc', ''), [])
  })

  test('an app\'s control characters are shown, never obeyed, and tabs are spaces', () => {
    assert.equal(displayText('\x1b]0;owned\x07 \x1b[2J\x9b', escapeControls), '\\x1b]0;owned\\x07 \\x1b[2J\\x9b')
    assert.equal(displayText('a\tb', escapeControls), 'a       b')
  })
})

describe('the pager\'s keys', () => {
  /** Press keys as keys.js names them, through the bindings and handlers a view installs. */
  function press (/** @type {Pager<string>} */ pager, /** @type {string[]} */ keys) {
    const bindings = pagerBindings('logs')
    const actions = pagerActions('logs', () => pager)
    for (const key of keys) {
      if (pager.input !== null) {
        typeSearch(pager, key, key.length === 1 ? key : undefined)
        continue
      }
      const binding = bindings.find((b) => b.keys.includes(key))
      assert.ok(binding, `${key} is a pager key`)
      actions[binding.action]()
    }
  }

  test('PgUp, G, f, w, / with n', () => {
    const pager = pagerOf(30)
    press(pager, ['pageup'])
    assert.equal(pager.follow, false)
    press(pager, ['G'])
    assert.equal(pager.follow, true)
    press(pager, ['f', 'w'])
    assert.equal(pager.follow, false)
    assert.equal(pager.wrap, false)
    press(pager, ['/', ...'line', 'space', '2', 'q'])
    assert.equal(pager.input, 'line 2q', 'q is typed, not quit')
    press(pager, ['backspace', '\x1b'])
    assert.equal(pager.input, 'line 2', 'no control character in a search')
    press(pager, ['enter'])
    assert.equal(pager.input, null)
    assert.equal(pager.current, 25, 'the first match from the top of the screen')
    press(pager, ['n'])
    assert.equal(pager.current, 26)
    press(pager, ['N', 'N'])
    assert.equal(pager.current, 24)
  })

  test('Esc while typing cancels the search; an empty search clears it', () => {
    const pager = pagerOf(3)
    press(pager, ['/', 'x', 'escape'])
    assert.equal(pager.input, null)
    assert.equal(pager.query, '')
    press(pager, ['/', '1', 'enter'])
    assert.equal(pager.matches.length, 1)
    press(pager, ['/', 'enter'])
    assert.equal(pager.query, '')
    assert.deepEqual(pager.matches, [])
  })

  test('every key has its help, and no key is bound twice', () => {
    const keys = pagerBindings('logs').flatMap((b) => b.keys)
    assert.equal(new Set(keys).size, keys.length)
    assert.ok(pagerBindings('logs').every((b) => b.help.length > 0 && b.action.startsWith('logs.')))
  })
})

describe('the pager\'s screen', () => {
  test('matches are marked in reverse video, the current one underlined too, braces escaped', () => {
    const row = { seq: 0, row: 0, prefix: { text: 'a[0] out ', color: 'cyan' }, indent: 0, start: 0, end: 17, ranges: /** @type {Array<[number, number]>} */ ([[4, 7], [12, 15]]) }
    assert.equal(renderRow(row, 'the err {x} err!', false, plain), 'a[0] out the {inverse}err{/inverse} {open}x{close} {inverse}err{/inverse}!')
    assert.match(renderRow(row, 'the err {x} err!', true, plain), /\{inverse\}\{underline\}err/)
    assert.match(renderRow(row, 'the err {x} err!', false, { color: true, unicode: true }), /^\{cyan-fg\}a\[0\] out \{\/cyan-fg\}/)
  })

  test('a match split by wrapping is marked on both rows', () => {
    const ranges = /** @type {Array<[number, number]>} */ ([[3, 7]])
    assert.equal(renderRow({ seq: 0, row: 0, prefix: null, indent: 0, start: 0, end: 5, ranges }, 'abcdefgh', false, plain), 'abc{inverse}de{/inverse}')
    assert.equal(renderRow({ seq: 0, row: 1, prefix: null, indent: 2, start: 5, end: 8, ranges }, 'abcdefgh', false, plain), '  {inverse}fg{/inverse}h')
  })

  test('the status line says what is typed, the matches, and whether it follows', () => {
    const pager = pagerOf(30)
    assert.match(renderStatus(pager, 80, '30 lines', plain), /^following · 30 lines$/)
    pager.search('line 2')
    assert.match(renderStatus(pager, 80, '30 lines', plain), /^"line 2" 7\/11 · paused · 30 lines$/)
    pager.search('nothing')
    assert.match(renderStatus(pager, 80, '', plain), /^"nothing" not found/)
    pager.search('')
    pager.page(-1)
    pager.toggleWrap()
    assert.match(renderStatus(pager, 80, '30 lines', plain), /^paused, 4 below · 30 lines · wrap off$/)
    pager.input = 'abc'
    assert.equal(renderStatus(pager, 80, '', plain), '/abc█')
  })
})
