// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { editDistance, suggestVerb } from '../../../client/suggest-verb.js'
import { usageLine } from '../../../client/cli.js'

/** @type {Array<[string, string | null]>} what was typed, the guess */
const guesses = [
  ['desc', 'describe'], // a prefix of one verb, not `del` at distance 2
  ['descibe', 'describe'],
  ['stat', 'status'],
  ['strat', 'start'],
  ['lsit', 'list'],
  ['lss', 'ls'],
  ['lo', 'logs'],
  ['delet', null], // destructive verbs are never offered
  ['del', null],
  ['stp', null],
  ['kil', null],
  ['flsh', null],
  ['rest', null],
  ['s', null],
  ['frobnicate', null]
]
for (const [typed, guess] of guesses) {
  test(`suggestVerb("${typed}") is ${guess}`, () => assert.equal(suggestVerb(typed), guess))
}

test('editDistance counts a swap of neighbours as one edit', () => {
  assert.equal(editDistance('lsit', 'list'), 1)
  assert.equal(editDistance('desc', 'del'), 2)
  assert.equal(editDistance('', 'ls'), 2)
})

/** @type {Array<[string, string]>} commander's message, the one line */
const lines = [
  ['error: unknown command \'desc\'\n(Did you mean del?)', 'unknown command \'desc\'; did you mean describe?'],
  ['error: unknown command \'delet\'\n(Did you mean delete?)', 'unknown command \'delet\''],
  ['error: unknown option \'--jsn\'\n(Did you mean --json?)', 'unknown option \'--jsn\'; did you mean --json?'],
  ['error: missing required argument \'name\'\n', 'missing required argument \'name\'']
]
for (const [text, line] of lines) {
  test(`usageLine: ${line}`, () => assert.equal(usageLine(text), line))
}
