// @ts-check
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
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

  // Promise jobs used to run after the limit, on the CLI's own queue: it spun forever. In a
  // child process, so that without the limit the test fails instead of hanging.
  for (const text of ['(Promise.resolve().then(() => { while (true) {} }), { apps: [] })', '((async () => { await null; for (;;) {} })(), { apps: [] })']) {
    test(`the time limit covers promise jobs: ${text}`, () => {
      const module = new URL('../../../../client/config/json-expression.js', import.meta.url).href
      const code = `import { evaluateJsonExpression } from ${JSON.stringify(module)}; const r = evaluateJsonExpression(${JSON.stringify(text)}, 'x.json', {}); console.log(JSON.stringify(r)); setImmediate(() => console.log('the CLI goes on'))`
      const child = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 15_000 })
      assert.equal(child.signal, null, 'the evaluation ended by itself')
      const [first, second] = child.stdout.trim().split('\n')
      assert.match(JSON.parse(first).message, /timed out after 1000ms/)
      assert.equal(second, 'the CLI goes on')
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
