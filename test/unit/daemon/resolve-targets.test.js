// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { matchTarget, resolveTargets } from '../../../daemon/resolve-targets.js'

/** @param {number} id @param {string} name @param {string} namespace @param {string} script */
const c = (id, name, namespace, script) => ({ id, name, namespace, script })
const WORKERS = [
  c(0, 'api', 'web', '/srv/api/server.js'),
  c(1, 'api', 'web', '/srv/api/server.js'),
  c(2, 'worker', 'jobs', '/srv/jobs/worker.js'),
  c(3, '455', 'default', '/srv/455.js'),
  c(4, 'web', 'default', '/srv/web/index.js'),
  c(5, 'mailer', 'jobs', '/srv/jobs/mailer.js')
]
/** @param {Array<{ id: number }>} found */
const ids = (found) => found.map((w) => w.id)

describe('matchTarget', () => {
  /** @type {Array<[string, string, { cwd?: string }, number[]]>} */
  const table = [
    ['"all" is every worker', 'all', {}, [0, 1, 2, 3, 4, 5]],
    ['an app name is its workers', 'api', {}, [0, 1]],
    ['a worker id is that worker', '2', {}, [2]],
    ['an id that no worker has is nothing', '42', {}, []],
    ['a numeric app name wins over the id (PM2 #1937)', '455', {}, [3]],
    ['a namespace is its apps\' workers', 'jobs', {}, [2, 5]],
    ['an app name wins over a namespace of the same word', 'web', {}, [4]],
    ['a script path relative to the caller\'s cwd', 'server.js', { cwd: '/srv/api' }, [0, 1]],
    ['a script path with directories', 'jobs/worker.js', { cwd: '/srv' }, [2]],
    ['an absolute script path needs no cwd', '/srv/jobs/mailer.js', {}, [5]],
    ['a relative script path without a cwd matches no script', 'server.js', {}, []],
    ['a script file of no app is nothing', 'nope.js', { cwd: '/srv' }, []],
    ['names are case-sensitive', 'API', {}, []],
    ['a regex is not matched here (the CLI expands it)', '/^api/', {}, []]
  ]
  for (const [name, target, options, expected] of table) {
    test(name, () => assert.deepEqual(ids(matchTarget(target, WORKERS, options)), expected))
  }
})

describe('resolveTargets', () => {
  test('several targets, each worker once, in target order', () => {
    assert.deepEqual(ids(resolveTargets(['worker', '0', 'api', 'jobs'], WORKERS)), [2, 0, 1, 5])
  })

  test('one unknown target fails the call, naming it', () => {
    assert.throws(() => resolveTargets(['api', 'nope'], WORKERS), { code: 'SUP_ERR_APP_NOT_FOUND', details: { target: 'nope' } })
  })

  test('"all" with no apps fails as in PM2', () => {
    assert.throws(() => resolveTargets(['all'], []), { code: 'SUP_ERR_APP_NONE' })
  })

  test('"all" with no apps is empty when allowNone', () => {
    assert.deepEqual(resolveTargets(['all'], [], { allowNone: true }), [])
  })

  test('allowNone does not excuse an unknown name', () => {
    assert.throws(() => resolveTargets(['nope'], [], { allowNone: true }), { code: 'SUP_ERR_APP_NOT_FOUND' })
  })
})
