// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { readAgentReport } from '../../../../daemon/worker/agent-report.js'

/** @type {Array<[string, unknown, ReturnType<typeof readAgentReport>]>} */
const rows = [
  ['a full report', { sup: 'metrics', loop: { p50: 0.2, p99: 3, max: 9 }, heap: { used: 10, total: 20 }, handles: 4 },
    { loop_delay: { p50: 0.2, p99: 3, max: 9 }, heap: { used: 10, total: 20 }, handles: 4 }],
  ['missing parts are null', { sup: 'metrics', heap: { used: 10 } }, { loop_delay: null, heap: null, handles: null }],
  ['numbers that are not sane are dropped', { sup: 'metrics', loop: { p50: -1, p99: 3, max: 9 }, heap: { used: 'x', total: 20 }, handles: Infinity },
    { loop_delay: null, heap: null, handles: null }],
  ['another message', { sup: 'listening' }, null],
  ['not an object', 'ready', null],
  ['null', null, null]
]
for (const [name, message, expected] of rows) {
  test(name, () => assert.deepEqual(readAgentReport(message), expected))
}
