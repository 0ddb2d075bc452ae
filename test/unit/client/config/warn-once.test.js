// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { warnOnce } from '../../../../client/config/build.js'

test('config warnings are said once each, with a key\'s control characters escaped', () => {
  /** @type {string[]} */
  const said = []
  const warn = warnOnce({ err: (text) => said.push(text) }, 'sup-runtime')
  warn('app "api": unknown key "a\u001b[2Jb" is ignored')
  warn('app "api": unknown key "a\u001b[2Jb" is ignored')
  assert.equal(said.length, 1)
  assert.ok(!said[0].includes('\u001b'), said[0])
  assert.match(said[0], /^sup-runtime: app "api": unknown key "a.*2Jb" is ignored$/)
})
