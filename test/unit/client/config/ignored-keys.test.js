// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { PM2_IGNORED_KEYS, closestKey, ignoredKeys } from '../../../../client/config/ignored-keys.js'
import { APP_FIELDS } from '../../../../ipc/app-fields.js'

/** @type {Array<[string, string | null]>} a misspelt key, and the key suggested */
const rows = [
  ['instancse', 'instances'],
  ['watchh', 'watch'],
  ['scirpt', 'script'],
  ['killTimeout', 'kill_timeout'],
  ['max-memory-restart', 'max_memory_restart'],
  ['ignore_wtach', 'ignore_watch'],
  ['nmae', 'name'],
  ['envv', 'env'],
  ['frobnicate', null],
  ['x', null]
]
for (const [key, expected] of rows) {
  test(`${key} -> ${expected}`, () => assert.equal(closestKey(key), expected))
}

test('an entry\'s keys: the table\'s, their PM2 aliases and env_<name> pass; PM2\'s other keys are named as PM2\'s', () => {
  assert.deepEqual(ignoredKeys({ name: 'a', script: 'a.js', node_args: '', out: 'x', env_production: {}, treekill: false, instancse: 2 }), [
    'ignored: PM2\'s "treekill" key has no effect under sup (sup always stops the whole process tree)',
    'unknown key "instancse" is ignored (did you mean "instances"?)'
  ])
})

test('no PM2 key said to be ignored is one sup reads', () => {
  const read = new Set(APP_FIELDS.flatMap((f) => [f.key, ...f.aliases ?? []]))
  assert.deepEqual(Object.keys(PM2_IGNORED_KEYS).filter((key) => read.has(key)), [])
})
