// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { formatProgress } from '../../../client/progress.js'

const base = { name: 'web', op: 'reload', at: 0 }
/** @type {Array<[Record<string, any>, string | null]>} */
const rows = [
  [{ ...base, phase: 'begin', strategy: 'rolling', workers: 4, surge: 1, maxUnavailable: 0, config: false, env: false }, 'reloading 4 workers of web (surge 1, max unavailable 0)'],
  [{ ...base, phase: 'begin', strategy: 'rolling', workers: 1, surge: 2, maxUnavailable: 1, config: true, env: true }, 'reloading 1 worker of web (surge 2, max unavailable 1), with the settings of the config file, with the current environment'],
  [{ ...base, phase: 'begin', strategy: 'restart', workers: 1 }, 'web runs in fork mode: reload falls back to restart (stop, then start)'],
  [{ ...base, op: 'scale', phase: 'begin', from: 2, to: 1 }, 'scaling web from 2 to 1 worker'],
  [{ ...base, phase: 'start', id: 5, instance: 1, pid: 123, total: 4 }, '  starting a new worker on instance 1 (pid 123)'],
  [{ ...base, phase: 'ready', id: 5, instance: 1, pid: 123, ready: 2, total: 4, retiring: [{ id: 1, instance: 1, pid: 98 }] }, '  worker 2/4 ready (pid 123) · retiring pid 98'],
  [{ ...base, phase: 'ready', id: 5, instance: 1, pid: 123, ready: 2, total: 4, retiring: [] }, '  worker 2/4 ready (pid 123)'],
  [{ ...base, phase: 'retire', retiring: [{ id: 3, pid: 7 }, { id: 2, pid: 6 }] }, '  retiring pids 7, 6'],
  [{ ...base, phase: 'retired', id: 1, instance: 1, pid: 98, ms: 24 }, '  pid 98 gone (drained and stopped in 24 ms)'],
  [{ ...base, phase: 'lingering', id: 7, instance: 0, pid: 98, connections: 12 }, '  pid 98 holds 12 long-lived connections (WebSocket, SSE): told it to shut down'],
  [{ ...base, phase: 'lingering', id: 7, instance: 0, pid: 98, connections: 1 }, '  pid 98 holds 1 long-lived connection (WebSocket, SSE): told it to shut down'],
  [{ ...base, phase: 'end', outcome: 'reloaded', started: [{}, {}], retired: [{}, {}], ms: 352 }, 'reloaded web in 352 ms: 2 new workers, 2 retired'],
  [{ ...base, phase: 'end', outcome: 'reloaded', started: [{}], retired: [{}], ms: 2500 }, 'reloaded web in 2s: 1 new worker, 1 retired'],
  [{ ...base, op: 'scale', phase: 'end', outcome: 'unchanged', reason: 'already 2 workers', started: [], retired: [], ms: 0 }, 'web: already 2 workers; nothing to do'],
  [{ ...base, phase: 'end', outcome: 'aborted', reason: 'x', started: [], retired: [], ms: 1 }, null],
  [{ ...base, phase: 'something new' }, null]
]
for (const [event, line] of rows) {
  test(`${event.op} ${event.phase}${event.outcome ? ` ${event.outcome}` : ''} -> ${line}`, () => {
    assert.equal(formatProgress(event), line)
  })
}
