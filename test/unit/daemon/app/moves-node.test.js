// @ts-check
// movesNode: when a restart of cluster workers must stop them all before any starts (their
// new node's primary cannot listen beside the old one's).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { movesNode } from '../../../../daemon/app/app.js'
import { STATUS } from '../../../../daemon/worker/lifecycle.js'

const A = { kind: /** @type {const} */ ('node'), path: '/a/node', version: 'v22.1.0', own: false, source: 'interpreter' }
const B = { kind: /** @type {const} */ ('node'), path: '/b/node', version: 'v24.1.0', own: false, source: '.nvmrc' }

/**
 * @param {'cluster' | 'fork'} mode
 * @param {string} status
 * @param {typeof A | null} runtime
 * @returns {any}
 */
const worker = (mode, status, runtime) => ({ config: { exec_mode: mode }, state: { status }, runtime })

/** @type {Array<[string, any[], typeof A | null, boolean]>} */
const cases = [
  ['cluster workers on A, next on B: moves', [worker('cluster', STATUS.ONLINE, A), worker('cluster', STATUS.ONLINE, A)], B, true],
  ['cluster workers on A, next on A: stays', [worker('cluster', STATUS.ONLINE, A)], A, false],
  ['fork workers on A, next on B: each moves alone', [worker('fork', STATUS.ONLINE, A)], B, false],
  ['stopped cluster workers: nothing holds the port', [worker('cluster', STATUS.STOPPED, A)], B, false],
  ['a stopping cluster worker still holds it', [worker('cluster', STATUS.STOPPING, A)], B, true],
  ['no node can be found now: moves (the start fails and says why)', [worker('cluster', STATUS.ONLINE, A)], null, true],
  ['never started (no runtime yet): nothing to move from', [worker('cluster', STATUS.ONLINE, null)], B, false]
]
for (const [name, workers, next, expected] of cases) {
  test(name, () => assert.equal(movesNode(workers, () => next), expected))
}
