// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { evaluateJsonExpression } from '../../../../client/config/json-expression.js'

describe('evaluateJsonExpression', () => {
  const file = '/srv/apps.json'
  const env = { PORT: '8080' }

  /** @type {Array<[string, string, unknown]>} */
  const values = [
    ['a literal', '{ apps: [{ script: "a.js" }] }', { apps: [{ script: 'a.js' }] }],
    ['an expression, after a comment', '// x\n[{ script: ["a", "js"].join(".") }]', [{ script: 'a.js' }]],
    ['process.env holds the given environment', '{ port: process.env.PORT, other: process.env.NOPE || "none" }', { port: '8080', other: 'none' }],
    ['what JSON cannot hold is dropped', '{ f () {}, u: undefined, n: 1 }', { n: 1 }],
    ['nothing is null', 'undefined', null]
  ]
  for (const [name, text, value] of values) {
    test(name, () => assert.deepEqual(evaluateJsonExpression(text, file, env), { ok: true, value }))
  }

  /** @type {Array<[string, string, RegExp]>} */
  const refused = [
    ['no require', '{ fs: require("fs") }', /^require is not defined$/],
    ['no eval', '{ a: eval("1") }', /Code generation from strings disallowed/],
    ['no Function from a string, so no way to the CLI\'s globals', '({}).constructor.constructor("return process")()', /Code generation from strings disallowed/],
    ['a time limit', '(() => { while (true) {} })()', /timed out after 1000ms/],
    ['a throw of anything', '(() => { throw "no" })()', /^no$/]
  ]
  for (const [name, text, message] of refused) {
    test(name, () => {
      const result = evaluateJsonExpression(text, file, env)
      assert.equal(result.ok, false)
      assert.match(/** @type {any} */ (result).message, message)
      assert.equal(/** @type {any} */ (result).syntax, false)
    })
  }

  test('the CLI\'s own process is not there: process is only the copy of env', () => {
    assert.deepEqual(evaluateJsonExpression('[typeof process.exit, typeof process.mainModule, Object.keys(process)]', file, env), { ok: true, value: ['undefined', 'undefined', ['env']] })
  })

  test('a line in the stack is the file\'s line', () => {
    const result = /** @type {any} */ (evaluateJsonExpression('[\n  1,\n  missing\n]', file, env))
    assert.match(result.stack, /\/srv\/apps\.json:3:3/)
  })

  test('text that is not an expression is a syntax error', () => {
    assert.deepEqual({ ...evaluateJsonExpression('[1 2]', file, env), message: '' }, { ok: false, syntax: true, message: '', stack: '' })
  })
})
