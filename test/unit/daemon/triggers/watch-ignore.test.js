// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildIgnore } from '../../../../daemon/triggers/watch-ignore.js'

describe('buildIgnore', () => {
  const ignored = buildIgnore({
    roots: ['/app', '/shared/config'],
    patterns: ['logs', '*.tmp', 'public/uploads', 'src/**/*.test.js', '/var/cache', '.cache/'],
    logFiles: ['/app/out/api-out.log']
  })
  /** @type {Array<[string, boolean]>} */
  const cases = [
    ['/app/server.js', false],
    ['/app/src/routes/users.js', false],
    ['/app', false],
    ['/app/node_modules', true],
    ['/app/node_modules/x/index.js', true],
    ['/app/packages/a/node_modules/b.js', true],
    ['/app/.git/HEAD', true],
    ['/app/logs', true],
    ['/app/deep/logs/today.txt', true],
    ['/app/notes.tmp', true],
    ['/app/a/b/c.tmp', true],
    ['/app/public/uploads/cat.png', true],
    ['/app/public/index.html', false],
    ['/app/other/public/uploads/x', false],
    ['/app/src/lib/a.test.js', true],
    ['/app/src/lib/a.js', false],
    ['/app/.cache/x', true],
    ['/app/out/api-out.log', true],
    ['/app/out/api-out__2026-01-01_00-00-00-000.log.gz', true],
    ['/app/out/api-err.log', false],
    ['/var/cache/thing', true],
    ['/shared/config/logs/x', true],
    ['/shared/config/app.json', false]
  ]
  for (const [path, expected] of cases) {
    test(`${path} -> ${expected ? 'ignored' : 'watched'}`, () => assert.equal(ignored(path), expected))
  }

  test('with no patterns only node_modules and .git are ignored', () => {
    const plain = buildIgnore({ roots: ['/app'], patterns: [] })
    assert.deepEqual(['/app/a.js', '/app/node_modules', '/app/.git', '/app/.env'].map(plain), [false, true, true, false])
  })
})
