// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { checkDependencies } from '../../../../daemon/app/depends-on.js'

const app = (/** @type {string} */ name, /** @type {string[]} */ deps = []) => ({ name, depends_on: deps })

/** @type {Array<[string, ReturnType<typeof app>[], Array<[string, string[]]>, string | null]>} */
const cases = [
  ['no dependencies', [app('a'), app('b')], [], null],
  ['on an app of the same start, listed later', [app('api', ['db']), app('db')], [], null],
  ['on a running app', [app('api', ['db'])], [['db', []]], null],
  ['a chain', [app('a', ['b']), app('b', ['c']), app('c')], [], null],
  ['a diamond is no circle', [app('a', ['b', 'c']), app('b', ['d']), app('c', ['d']), app('d')], [], null],
  ['an unknown name', [app('api', ['db'])], [], 'SUP_ERR_APP_DEPENDENCY_UNKNOWN: app "api" depends on "db"'],
  ['two apps in a circle', [app('a', ['b']), app('b', ['a'])], [], 'SUP_ERR_APP_DEPENDENCY_CYCLE: depends_on goes round in a circle: a -> b -> a'],
  ['a longer circle', [app('a', ['b']), app('b', ['c']), app('c', ['a'])], [], 'SUP_ERR_APP_DEPENDENCY_CYCLE: depends_on goes round in a circle: a -> b -> c -> a'],
  ['a circle through a running app', [app('b', ['a'])], [['a', ['b']]], 'SUP_ERR_APP_DEPENDENCY_CYCLE: depends_on goes round in a circle: b -> a -> b']
]
for (const [name, starting, running, expected] of cases) {
  test(`checkDependencies: ${name}`, () => {
    if (expected === null) return assert.doesNotThrow(() => checkDependencies(starting, new Map(running)))
    const [code] = expected.split(': ')
    assert.throws(() => checkDependencies(starting, new Map(running)), (/** @type {any} */ err) => {
      assert.equal(err.code, code)
      assert.ok(err.message.startsWith(expected.slice(code.length + 2)), err.message)
      return true
    })
  })
}
