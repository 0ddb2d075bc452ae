// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MAX_APPS_PER_REQUEST, orderByDependencies, splitIntoParts } from '../../../client/app-parts.js'

const app = (/** @type {string} */ name, /** @type {string[]} */ deps = []) => ({ name, depends_on: deps })

test('one part when the apps fit one request; the schema\'s limit otherwise', () => {
  assert.equal(MAX_APPS_PER_REQUEST, 256)
  const few = [app('a'), app('b')]
  assert.deepEqual(splitIntoParts(few), [few])
  const many = Array.from({ length: 600 }, (_, i) => app(`a${i}`))
  const parts = splitIntoParts(many)
  assert.deepEqual(parts.map((p) => p.length), [256, 256, 88])
  assert.deepEqual(parts.flat(), many, 'every app once, in order')
})

test('parts are cut by bytes too', () => {
  const apps = Array.from({ length: 10 }, (_, i) => ({ name: `a${i}`, env: { X: 'x'.repeat(100) } }))
  const parts = splitIntoParts(apps, { maxBytes: 400 })
  assert.ok(parts.length >= 4)
  assert.ok(parts.every((p) => p.length > 0 && (p.length === 1 || JSON.stringify(p).length <= 400 + p.length)))
  assert.deepEqual(parts.flat(), apps)
})

test('an app comes after the apps it depends on, so a later part never names an unknown one', () => {
  const apps = [app('web', ['db', 'cache']), app('db'), app('worker', ['web']), app('cache', ['db'])]
  assert.deepEqual(orderByDependencies(apps).map((a) => a.name), ['db', 'cache', 'web', 'worker'])
  assert.deepEqual(splitIntoParts(apps, { maxApps: 1 }).map((p) => p[0].name), ['db', 'cache', 'web', 'worker'])
})

test('a cycle, or a dependency outside the list, keeps the order (the daemon names the problem)', () => {
  assert.deepEqual(orderByDependencies([app('a', ['b']), app('b', ['a']), app('c')]).map((a) => a.name), ['c', 'a', 'b'])
  assert.deepEqual(orderByDependencies([app('a', ['elsewhere']), app('b')]).map((a) => a.name), ['a', 'b'])
})
