// @ts-check
// A revision is frozen; the next one is made only when something changes.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { makeRevision, reviseRevision } from '../../../../daemon/worker/revision.js'
import { appConfig } from '../../../helpers/fake-effects.js'

test('a revision and what it holds are frozen', () => {
  const revision = makeRevision(appConfig({ name: 'api' }), { A: '1' })
  assert.ok(Object.isFrozen(revision) && Object.isFrozen(revision.config) && Object.isFrozen(revision.shellEnv))
  assert.throws(() => { /** @type {any} */ (revision.shellEnv).A = '2' }, TypeError)
})

test('a frozen config is kept as it is, not copied', () => {
  const config = Object.freeze(appConfig({}))
  assert.equal(makeRevision(config, {}).config, config)
})

/** @type {Array<[string, (r: import('../../../../daemon/worker/revision.js').Revision) => Parameters<typeof reviseRevision>[1], boolean]>} */
const rows = [
  ['nothing given: the same revision', () => ({}), true],
  ['the same config and environment: the same revision', (r) => ({ config: r.config, shellEnv: r.shellEnv }), true],
  ['a new config: the next revision', (r) => ({ config: Object.freeze({ ...r.config, min_uptime: 1 }) }), false],
  ['a new environment: the next revision', () => ({ shellEnv: { B: '2' } }), false]
]
for (const [name, next, same] of rows) {
  test(`reviseRevision: ${name}`, () => {
    const revision = makeRevision(appConfig({}), { A: '1' })
    const revised = reviseRevision(revision, next(revision))
    assert.equal(revised === revision, same)
    if (!same) assert.ok(Object.isFrozen(revised))
  })
}
