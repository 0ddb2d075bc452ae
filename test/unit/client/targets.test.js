// @ts-check
import assert from 'node:assert/strict'
import { tmpdir } from 'node:os'
import { test } from 'node:test'
import { expandTargets } from '../../../client/targets.js'

test('"-" stands for the names of the apps of the config on stdin (PM2\'s delete -)', async () => {
  const stdin = async () => JSON.stringify({ apps: [{ name: 'a', script: 'a.js' }, { script: 'lib/b.js' }] })
  assert.deepEqual(await expandTargets(['0', '-', 'api'], { cwd: tmpdir(), stdin }), ['0', 'a', 'b', 'api'])
  assert.deepEqual(await expandTargets(['-'], { cwd: tmpdir(), stdin, only: 'b' }), ['b'])
})

test('without "-", stdin is not read', async () => {
  const stdin = async () => { throw new Error('stdin read') }
  assert.deepEqual(await expandTargets(['api', 'all'], { cwd: tmpdir(), stdin }), ['api', 'all'])
})
