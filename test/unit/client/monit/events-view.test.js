// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { EVENTS_VIEW_EVENTS, EventsView, renderEventsView } from '../../../../client/monit/events-view.js'

const plain = { color: false, unicode: true }
/** @param {string} s */
const visible = (s) => s.replace(/\{\/?[a-z-]+\}/g, '').replace(/\{open\}/g, '{').replace(/\{close\}/g, '}')

/**
 * @param {number} seq
 * @param {Partial<import('../../../../ipc/events.js').SupEvent>} [extra]
 * @returns {import('../../../../ipc/events.js').SupEvent}
 */
const event = (seq, extra = {}) => ({ seq, at: Date.UTC(2026, 10, 26, 17, 0, seq), kind: 'restarting', level: 'warn', app: 'boom', id: 0, instance: 0, message: `exited with code 3; restarting in 100 ms (attempt ${seq})`, data: { code: 3 }, ...extra })

/**
 * @param {number} id
 * @param {Partial<import('../../../../client/monit/model.js').WorkerView>} [extra]
 * @returns {import('../../../../client/monit/model.js').WorkerView}
 */
const worker = (id, extra = {}) => ({ id, name: 'boom', instance: id, pid: null, status: 'online', mode: 'fork', restarts: 17, uptime: 0, cpu: 0, memory: 0, unstable_restarts: 0, retry_at: null, last_exit: null, ...extra })

describe('EventsView', () => {
  test('an app\'s view takes its events; history and stream are merged by seq, each once', () => {
    const view = new EventsView({ kind: 'app', name: 'boom' })
    view.add(event(3))
    view.add(event(4, { app: 'other' }))
    view.add(event(5))
    view.load([event(1), event(2), event(3)])
    view.add(event(5))
    view.add(event(6))
    assert.deepEqual(view.pager.items().map((e) => e.seq), [1, 2, 3, 5, 6])
    assert.equal(view.target(), 'boom')
    assert.equal(new EventsView({ kind: 'all' }).target(), null)
  })

  test(`keeps ${EVENTS_VIEW_EVENTS} events, as the daemon does`, () => {
    const view = new EventsView({ kind: 'all' })
    view.load(Array.from({ length: EVENTS_VIEW_EVENTS + 5 }, (_, i) => event(i)))
    assert.equal(view.pager.size, EVENTS_VIEW_EVENTS)
  })

  test('a crash-looping app: its last exit and the countdown to the next restart above the events', () => {
    const now = Date.UTC(2026, 10, 26, 17, 1, 0)
    const view = new EventsView({ kind: 'app', name: 'boom' })
    view.load([event(1), event(2, { kind: 'crash-loop', level: 'error', message: 'exited with code 3 (17 restarts within min_uptime); errored, next try in 30s' })])
    const workers = [worker(0, { status: 'errored', retry_at: now + 27_000, last_exit: { code: 3, signal: null, at: now - 4000 } }), worker(1, { name: 'calm', status: 'online' })]
    const screen = renderEventsView(view, workers, now, 100, 10, plain).split('\n').map(visible)
    assert.equal(screen.length, 10)
    assert.equal(view.title(), 'events of boom')
    assert.equal(screen[0], 'crash loop: boom: last exit code 3 (worker 0, 4s ago); next try in 27s')
    assert.match(screen[2], /^11-26 \d\d:\d\d:01 boom:0 +restarting +exited with code 3; restarting in 100 ms \(attempt 1\)$/)
    assert.match(screen[3], /boom:0 +crash-loop +exited with code 3 \(17 restarts/)
    assert.match(screen[9], /^following · 2 events$/)
    // A second later the countdown has moved on.
    assert.match(visible(renderEventsView(view, workers, now + 1000, 100, 10, plain)), /next try in 26s/)
  })

  test('levels are coloured: error red, warn yellow; nothing else when colour is off', () => {
    const view = new EventsView({ kind: 'all' })
    view.load([event(1), event(2, { level: 'error' }), event(3, { level: 'info', kind: 'online', message: 'online' })])
    const colour = renderEventsView(view, [], 0, 100, 8, { color: true, unicode: true })
    assert.match(colour, /\{yellow-fg\}[^{]*boom:0 +\{\/yellow-fg\}restarting/)
    assert.match(colour, /\{red-fg\}[^{]*boom:0 +\{\/red-fg\}restarting/)
    assert.doesNotMatch(renderEventsView(view, [], 0, 100, 8, plain), /-fg\}/)
  })

  test('a message with control characters and braces is shown as text', () => {
    const view = new EventsView({ kind: 'all' })
    view.load([event(1, { message: 'SyntaxError: {x}\x1b[31m' })])
    const screen = renderEventsView(view, [], 0, 100, 5, plain)
    assert.ok(screen.includes('SyntaxError: {open}x{close}\\x1b[31m'))
  })
})
