// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { escapeControls, escapeDeep, stringifyForTerminal } from '../../../ipc/terminal-text.js'

/** @type {Array<[string, string]>} */
const cases = [
  ['plain text, a tab\tand a \\ backslash', 'plain text, a tab\tand a \\ backslash'],
  ['\u001b]0;title\u0007', '\\x1b]0;title\\x07'],
  ['\u001b[2J', '\\x1b[2J'],
  ['\u001b]52;c;ZXZpbA==\u0007', '\\x1b]52;c;ZXZpbA==\\x07'],
  ['a\nb\rc', 'a\\nb\\rc'],
  ['\u0000\u007f', '\\x00\\x7f'],
  ['\u009b31m', '\\x9b31m'],
  ['\u0085 NEL', '\\x85 NEL'],
  ['é ✓ 日本', 'é ✓ 日本']
]
for (const [input, expected] of cases) {
  test(`escapeControls ${JSON.stringify(input)} -> ${expected}`, () => assert.equal(escapeControls(input), expected))
}

test('escapeDeep escapes every string and key, and leaves the rest', () => {
  assert.deepEqual(escapeDeep({ 'k\u001b': ['\u009b', 1, null, true], n: { s: 'ok\n' } }), { 'k\\x1b': ['\\x9b', 1, null, true], n: { s: 'ok\\n' } })
})

test('escapeDeep keeps a "__proto__" key (an env key from a config) as a key, and the copy a plain object', () => {
  const copy = escapeDeep(JSON.parse('{"__proto__": {"polluted": "\\u001b"}, "a": "b"}'))
  assert.deepEqual(Object.keys(copy), ['__proto__', 'a'])
  assert.equal(Object.getPrototypeOf(copy), Object.prototype)
  assert.equal(/** @type {any} */ ({}).polluted, undefined)
  assert.equal(JSON.stringify(copy), '{"__proto__":{"polluted":"\\\\x1b"},"a":"b"}')
})

test('stringifyForTerminal writes DEL and C1 as \\u escapes: the same JSON, no CSI', () => {
  const value = { line: '\u009b2J\u007f\u001b' }
  const text = stringifyForTerminal(value)
  assert.equal(text, '{"line":"\\u009b2J\\u007f\\u001b"}')
  assert.deepEqual(JSON.parse(text), value)
})
