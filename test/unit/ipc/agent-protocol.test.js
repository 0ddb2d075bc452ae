// @ts-check
// The agent protocol is a table each way; these tests read each message as the receiving
// side does, including what a user's process may send that is not ours.
import assert from 'node:assert/strict'
import { createRequire } from 'node:module'
import { test } from 'node:test'
import * as esm from '../../../ipc/agent-protocol.js'

/** @type {typeof import('../../../ipc/agent-protocol.cjs')} */
const cjs = createRequire(import.meta.url)('../../../ipc/agent-protocol.cjs')
const { AGENT_CMD, TO_AGENT, FROM_AGENT, APP_MESSAGES, toAgent, fromAgent, agentActOf, workerActOf, dispatch } = cjs

test('the ESM face is the CommonJS module the agent requires', () => {
  for (const name of ['AGENT_CMD', 'TO_AGENT', 'FROM_AGENT', 'APP_MESSAGES', 'toAgent', 'fromAgent', 'agentActOf', 'workerActOf', 'dispatch']) {
    assert.equal(/** @type {any} */ (esm)[name], /** @type {any} */ (cjs)[name], name)
  }
})

test('every act is named after itself, so the tables can be keyed on the names', () => {
  for (const table of [TO_AGENT, FROM_AGENT, APP_MESSAGES]) {
    for (const [key, value] of Object.entries(table)) assert.equal(value, key)
    assert.ok(Object.isFrozen(table))
  }
})

test('messages to the agent go as internal messages (cmd NODE_…) the app never sees', () => {
  assert.match(AGENT_CMD, /^NODE_/)
  assert.deepEqual(toAgent('drain', { idleMs: 500 }), { cmd: 'NODE_SUP', act: 'drain', idleMs: 500 })
  assert.deepEqual(toAgent('gate'), { cmd: 'NODE_SUP', act: 'gate' })
  // fields cannot overwrite the envelope
  assert.deepEqual(toAgent('open', { cmd: 'x', act: 'drain' }), { cmd: 'NODE_SUP', act: 'open' })
  assert.deepEqual(fromAgent('metrics', { handles: 3, sup: 'x' }), { sup: 'metrics', handles: 3 })
})

/** @type {Array<[unknown, string | null]>} what the agent makes of what it receives */
const toAgentRows = [
  [{ cmd: 'NODE_SUP', act: 'drain', idleMs: 10 }, 'drain'],
  [{ cmd: 'NODE_SUP', act: 'sync' }, 'sync'],
  [{ cmd: 'NODE_SUP', act: 'gate' }, 'gate'],
  [{ cmd: 'NODE_SUP', act: 'open' }, 'open'],
  [{ cmd: 'NODE_SUP', act: 'explode' }, null],
  [{ cmd: 'NODE_SUP', act: 'constructor' }, null],
  [{ cmd: 'NODE_SUP', act: '__proto__' }, null],
  [{ cmd: 'NODE_SUP' }, null],
  [{ cmd: 'NODE_CLUSTER', act: 'drain' }, null],
  [{ act: 'drain' }, null],
  ['drain', null],
  [null, null],
  [undefined, null],
  [42, null]
]
for (const [message, act] of toAgentRows) {
  test(`the agent reads ${JSON.stringify(message)} as ${act}`, () => {
    assert.equal(agentActOf(message), act)
  })
}

/** @type {Array<[unknown, string | null]>} what the daemon makes of what a worker sends */
const fromWorkerRows = [
  ['ready', 'ready'],
  [{ sup: 'listening' }, 'listening'],
  [{ sup: 'metrics', loop: {}, heap: {}, handles: 1 }, 'metrics'],
  [{ sup: 'drained' }, 'drained'],
  [{ sup: 'synced' }, 'synced'],
  // the app's own messages: passed on, not ours
  ['shutdown', null],
  ['online', null],
  [{ sup: 'ready' }, null],
  [{ sup: 'toString' }, null],
  [{ sup: 'hasOwnProperty' }, null],
  [{ type: 'process:msg', data: {} }, null],
  [{ cmd: 'NODE_SUP', act: 'drain' }, null],
  [null, null],
  [7, null]
]
for (const [message, act] of fromWorkerRows) {
  test(`the daemon reads ${JSON.stringify(message)} from a worker as ${act}`, () => {
    assert.equal(workerActOf(message), act)
  })
}

test('dispatch calls the one handler of the act with the message, and says whether there was one', () => {
  /** @type {string[]} */
  const calls = []
  const handlers = { drain: (/** @type {any} */ m) => calls.push(`drain ${m.idleMs}`), gate: () => calls.push('gate') }
  assert.equal(dispatch(handlers, 'drain', { idleMs: 5 }), true)
  assert.equal(dispatch(handlers, 'gate', {}), true)
  assert.equal(dispatch(handlers, 'open', {}), false)
  assert.equal(dispatch(handlers, null, {}), false)
  assert.equal(dispatch(handlers, /** @type {any} */ ('toString'), {}), false)
  assert.deepEqual(calls, ['drain 5', 'gate'])
})

test('a message round-trips: what one side builds, the other reads as the same act', () => {
  for (const act of Object.values(TO_AGENT)) assert.equal(agentActOf(toAgent(act)), act)
  for (const act of Object.values(FROM_AGENT)) assert.equal(workerActOf(fromAgent(act)), act)
  assert.equal(workerActOf(APP_MESSAGES.ready), 'ready')
})
