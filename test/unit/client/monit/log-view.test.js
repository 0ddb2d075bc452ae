// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { LOG_VIEW_LINES, LogView, renderLogView } from '../../../../client/monit/log-view.js'
import { escapeControls } from '../../../../ipc/terminal-text.js'

const plain = { color: false, unicode: true }
/** Remove blessed tags, to read what a person sees. @param {string} s */
const visible = (s) => s.replace(/\{\/?[a-z-]+\}/g, '').replace(/\{open\}/g, '{').replace(/\{close\}/g, '}')

/**
 * @param {number} time
 * @param {string} line
 * @param {Partial<import('../../../../client/monit/model.js').LogEntry>} [extra]
 * @returns {import('../../../../client/monit/model.js').LogEntry}
 */
const entry = (time, line, extra = {}) => ({ time, app: 'api', id: 0, instance: 0, stream: 'out', line, ...extra })

/** @param {LogView} view */
const lines = (view) => view.pager.items().map((e) => e.line)

describe('LogView', () => {
  test('an app\'s view takes its lines, a worker\'s only that worker\'s, all takes every line', () => {
    const app = new LogView({ kind: 'app', name: 'api' })
    const worker = new LogView({ kind: 'worker', id: 1, name: 'api', instance: 1 })
    const all = new LogView({ kind: 'all' })
    for (const v of [app, worker, all]) v.load([])
    for (const e of [entry(1, 'a'), entry(2, 'b', { id: 1, instance: 1 }), entry(3, 'c', { app: 'jobs', id: 2 })]) {
      for (const v of [app, worker, all]) v.add(e)
    }
    assert.deepEqual([lines(app), lines(worker), lines(all)], [['a', 'b'], ['b'], ['a', 'b', 'c']])
    assert.deepEqual([app.target(), worker.target(), all.target()], ['api', '1', null])
  })

  test('the history comes first, then the lines the stream brought meanwhile, each once', () => {
    const view = new LogView({ kind: 'app', name: 'api' })
    view.add(entry(5, 'same moment, in both'))
    view.add(entry(5, 'same moment, only streamed'))
    view.add(entry(6, 'after'))
    view.add(entry(4, 'before the history ends'))
    assert.equal(view.pager.size, 0, 'held back until the history is in')
    view.load([entry(3, 'old'), entry(5, 'same moment, in both')])
    assert.deepEqual(lines(view), ['old', 'same moment, in both', 'same moment, only streamed', 'after'])
    view.add(entry(7, 'live'))
    assert.equal(lines(view).at(-1), 'live')
  })

  test(`memory is bounded: ${LOG_VIEW_LINES} lines kept, the oldest dropped first`, () => {
    const view = new LogView({ kind: 'all' })
    view.load([])
    for (let i = 0; i < LOG_VIEW_LINES + 10; i++) view.add(entry(i, `line ${i}`))
    assert.equal(view.pager.size, LOG_VIEW_LINES)
    assert.equal(lines(view)[0], 'line 10')
  })

  test('the screen: a title, the newest lines with their app, worker and stream, the status', () => {
    const view = new LogView({ kind: 'app', name: 'api' })
    view.load([entry(Date.UTC(2026, 10, 26, 17, 0, 1), 'listening'), entry(0, 'boom', { stream: 'err' }), entry(0, 'App [api:0] exited with code 3', { stream: 'sup' })])
    view.toggleTimes()
    const screen = renderLogView(view, 60, 6, plain).split('\n').map(visible)
    assert.equal(screen.length, 6)
    assert.equal(view.title(), 'logs of api (all workers)')
    assert.deepEqual(screen.slice(0, 3), ['api[0] out listening', 'api[0] err boom', 'api[0] sup App [api:0] exited with code 3'])
    assert.match(screen[5], /^following · 3 lines$/)
    assert.ok(screen.every((l) => l.length <= 60))
  })

  test('the streams are told apart by colour too: out cyan, err red, sup yellow', () => {
    const view = new LogView({ kind: 'all' })
    view.load([entry(0, 'o'), entry(0, 'e', { stream: 'err' }), entry(0, 's', { stream: 'sup' })])
    const screen = renderLogView(view, 60, 6, { color: true, unicode: true })
    assert.match(screen, /\{cyan-fg\}\d\d:\d\d:\d\d api\[0\] out \{\/cyan-fg\}o/)
    assert.match(screen, /\{red-fg\}[^{]* err \{\/red-fg\}e/)
    assert.match(screen, /\{yellow-fg\}[^{]* sup \{\/yellow-fg\}s/)
  })

  test('an app\'s escape sequences and braces reach the screen as text', () => {
    const view = new LogView({ kind: 'all' })
    view.load([entry(0, '\x1b]52;c;aGk=\x07{bold}\x1b[2J')])
    view.toggleTimes()
    const screen = renderLogView(view, 80, 4, plain)
    assert.ok(screen.includes('api[0] out \\x1b]52;c;aGk=\\x07{open}bold{close}\\x1b[2J'))
    assert.ok(screen.split('\n').every((l) => escapeControls(l) === l), 'no control character reaches the terminal')
  })

  test('before the history is in it says so', () => {
    assert.match(renderLogView(new LogView({ kind: 'all' }), 40, 4, plain), /loading/)
  })
})
