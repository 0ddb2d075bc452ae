// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { describeRollout } from '../../../../client/commands/describe.js'

const NOW = 1_000_000
/** @type {Array<[Record<string, any>, string]>} */
const rows = [
  [{ outcome: 'aborted', reason: 'new worker 2 of api exited with code 3', at: NOW - 12_000, ms: 900, started: [], retired: [] }, 'aborted 12s ago: new worker 2 of api exited with code 3'],
  [{ outcome: 'reloaded', reason: null, at: NOW - 180_000, ms: 352, started: [1, 2], retired: [1, 2] }, 'reloaded 3m ago in 352 ms: 2 new, 2 retired'],
  [{ outcome: 'restarted', reason: 'fork mode: reload falls back to restart (stop, then start)', at: NOW, ms: 40, started: [], retired: [] }, 'restarted 0s ago in 40 ms (fork mode: reload falls back to restart (stop, then start))'],
  [{ outcome: 'unchanged', reason: 'already 2 workers', at: NOW - 2000, ms: 0, started: [], retired: [] }, 'unchanged 2s ago in 0 ms (already 2 workers)']
]
for (const [rollout, line] of rows) {
  test(`${rollout.outcome} -> ${line}`, () => {
    assert.equal(describeRollout(/** @type {any} */ (rollout), NOW), line)
  })
}
