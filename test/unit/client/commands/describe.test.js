// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { describeRollout, describeVersioning } from '../../../../client/commands/describe.js'

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

/** @type {Array<[Parameters<typeof describeVersioning>[0], string]>} */
const revisions = [
  [{ repo_path: '/srv/api', branch: 'main', revision: '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d', remote: 'git@github.com:acme/api.git' }, 'revision: git main@1a2b3c4d5e6f (git@github.com:acme/api.git) in /srv/api'],
  [{ repo_path: '/srv/api', branch: null, revision: '1a2b3c4d5e6f7a8b9c0d1a2b3c4d5e6f7a8b9c0d', remote: null }, 'revision: git (detached)@1a2b3c4d5e6f in /srv/api'],
  [{ repo_path: '/srv/new', branch: 'main', revision: null, remote: null }, 'revision: git main@(no commit) in /srv/new']
]
for (const [versioning, line] of revisions) {
  test(line, () => assert.equal(describeVersioning(versioning), line))
}
