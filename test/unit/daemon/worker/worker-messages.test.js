// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { test } from 'node:test'
import { clusterWorkerMessages, lingeringCount, workerMessages } from '../../../../daemon/worker/spawn.js'

/** Feed messages to a worker's handler; returns the events it emitted. */
function feed (/** @type {unknown[]} */ messages) {
  const events = new EventEmitter()
  /** @type {Array<[string, ...unknown[]]>} */
  const seen = []
  for (const name of ['ready', 'listening', 'metrics', 'drained', 'message']) events.on(name, (...args) => seen.push([name, ...args]))
  const onMessage = workerMessages(events)
  for (const message of messages) onMessage(message)
  return seen
}

/** @type {Array<[unknown, Array<[string, ...unknown[]]>]>} */
const rows = [
  ['ready', [['ready']]],
  [{ sup: 'listening' }, [['listening']]],
  [{ sup: 'metrics', handles: 2 }, [['metrics', { sup: 'metrics', handles: 2 }]]],
  // the app's own messages go on as 'message', whatever they look like
  ['shutdown', [['message', 'shutdown']]],
  [{ sup: 'nope' }, [['message', { sup: 'nope' }]]],
  [{ sup: 'constructor' }, [['message', { sup: 'constructor' }]]],
  [null, [['message', null]]],
  // a fork-mode worker has no drain: its 'drained' is not acted on
  [{ sup: 'drained' }, [['message', { sup: 'drained' }]]]
]
for (const [message, events] of rows) {
  test(`a worker's ${JSON.stringify(message)} -> ${JSON.stringify(events)}`, () => {
    assert.deepEqual(feed([message]), events)
  })
}

test('a cluster worker\'s drain handshake: drained is answered with sync, synced is the drained event', () => {
  /** @type {unknown[]} */
  const sent = []
  const events = new EventEmitter()
  /** @type {string[]} */
  const seen = []
  for (const name of ['drained', 'ready', 'message']) events.on(name, () => seen.push(name))
  const onMessage = clusterWorkerMessages(events, (message) => sent.push(message))
  onMessage({ sup: 'drained' })
  assert.deepEqual(sent, [{ cmd: 'NODE_SUP', act: 'sync' }])
  assert.deepEqual(seen, [])
  onMessage({ sup: 'synced' })
  onMessage('ready')
  onMessage('hello from the app')
  assert.deepEqual(seen, ['drained', 'ready', 'message'])
})

test('a cluster worker left with only long-lived connections: lingering is answered with sync, and synced after it is the lingering event, with the count', () => {
  /** @type {unknown[]} */
  const sent = []
  const events = new EventEmitter()
  /** @type {unknown[][]} */
  const seen = []
  for (const name of ['drained', 'lingering', 'message']) events.on(name, (...args) => seen.push([name, ...args]))
  const onMessage = clusterWorkerMessages(events, (message) => sent.push(message))
  onMessage({ sup: 'lingering', connections: 7 })
  assert.deepEqual(sent, [{ after: 'lingering', cmd: 'NODE_SUP', act: 'sync' }])
  assert.deepEqual(seen, [])
  onMessage({ sup: 'synced', after: 'lingering' })
  // Then the app closes them, the servers' last connection goes: drained as before.
  onMessage({ sup: 'synced' })
  assert.deepEqual(seen, [['lingering', 7], ['drained']])
})

test('the count of long-lived connections a worker reports is a positive integer, whatever the message holds', () => {
  /** @type {Array<[unknown, number]>} */
  const rows = [[5, 5], [0, 1], [-3, 1], [2.5, 1], ['12', 12], ['many', 1], [1e20, 1], [null, 1], [undefined, 1], [{}, 1]]
  for (const [connections, count] of rows) assert.equal(lingeringCount({ sup: 'lingering', connections }), count, String(connections))
})
