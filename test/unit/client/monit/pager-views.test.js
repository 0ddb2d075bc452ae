// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MonitModel } from '../../../../client/monit/model.js'
import { createEventsView, createLogView, eventsScopeOf, logScopeOf } from '../../../../client/monit/pager-views.js'
import { LogView } from '../../../../client/monit/log-view.js'
import { EventsView } from '../../../../client/monit/events-view.js'

/**
 * @param {number} id
 * @param {string} name
 * @returns {import('../../../../client/monit/model.js').WorkerView}
 */
const row = (id, name) => ({ id, name, instance: id, pid: 1000 + id, status: 'online', mode: 'cluster', restarts: 0, uptime: 1000, cpu: 0, memory: 0, unstable_restarts: 0, retry_at: null, last_exit: null })

/** A view context whose requests a test answers. */
function context () {
  const model = new MonitModel()
  model.setWorkers([row(0, 'api'), row(1, 'api'), row(2, 'jobs')])
  /** @type {Array<{ method: string, params: any, answer: (value: any) => void }>} */
  const requests = []
  const ctx = {
    model,
    request: (/** @type {string} */ method, /** @type {any} */ params) => new Promise((resolve) => { requests.push({ method, params, answer: resolve }) }),
    redraw: () => {},
    say: () => {},
    confirm: async () => false,
    pageHeight: () => 20,
    style: { color: false, unicode: true }
  }
  return { ctx, model, requests }
}

/** @param {number} time @param {string} app @param {number} id @param {string} line */
const entry = (time, app, id, line) => ({ time, app, id, instance: id, stream: /** @type {const} */ ('out'), line })

describe('the log and events views', () => {
  test('sup monit --host: the scope is the selection\'s host and its own ids; another host\'s lines and events stay out', () => {
    const model = new MonitModel()
    model.setWorkers([{ ...row(1_000_000, 'api'), host: 'web2', remote_id: 0 }, { ...row(0, 'api'), host: 'web1', remote_id: 0 }])
    assert.deepEqual(logScopeOf(model), { kind: 'app', name: 'api', host: 'web1' })
    model.move(1)
    model.toggle()
    model.move(1)
    const scope = logScopeOf(model)
    assert.deepEqual(scope, { kind: 'worker', id: 0, name: 'api', instance: 1_000_000, host: 'web2' })
    assert.deepEqual(eventsScopeOf(model), { kind: 'app', name: 'api', host: 'web2' })
    const logs = new LogView(scope)
    assert.equal(logs.target(), '0', 'logs.tail asks web2 for its worker 0')
    assert.equal(logs.accepts({ ...entry(1, 'api', 0, 'x'), host: 'web2' }), true)
    assert.equal(logs.accepts({ ...entry(1, 'api', 0, 'x'), host: 'web1' }), false)
    const events = new EventsView(eventsScopeOf(model))
    const event = (/** @type {string} */ host) => /** @type {any} */ ({ seq: 1, at: 1, kind: 'restarting', app: 'api', host, message: '' })
    assert.equal(events.accepts(event('web2')), true)
    assert.equal(events.accepts(event('web1')), false)
  })

  test('open on the selection: an app, a worker (its app for events), or all apps when nothing is selected', () => {
    const { model } = context()
    assert.deepEqual(logScopeOf(model), { kind: 'app', name: 'api' })
    model.toggle()
    model.move(1)
    assert.deepEqual(logScopeOf(model), { kind: 'worker', id: 0, name: 'api', instance: 0 })
    assert.deepEqual(eventsScopeOf(model), { kind: 'app', name: 'api' })
    model.selection = null
    assert.deepEqual(logScopeOf(model), { kind: 'all' })
    assert.deepEqual(eventsScopeOf(model), { kind: 'all' })
  })

  test('the log view asks for the selection\'s history, takes the stream, and `a` switches to all apps and back', async () => {
    const { ctx, requests } = context()
    const view = createLogView(ctx)
    const opened = view.open?.()
    assert.deepEqual(requests.map((r) => [r.method, r.params]), [['logs.tail', { target: 'api', lines: 5000 }]])
    view.onLog?.(entry(2, 'api', 1, 'streamed'))
    view.onLog?.(entry(2, 'jobs', 2, 'not api\'s'))
    requests[0].answer([entry(1, 'api', 0, 'history')])
    await opened
    assert.match(view.render(60, 5), /api\[0\] out history\n.*api\[1\] out streamed/)
    assert.equal(view.label?.(), 'logs of api (all workers)')

    const all = view.actions['logs.all']()
    assert.deepEqual(requests[1].params, { target: null, lines: 5000 })
    requests[1].answer([])
    await all
    assert.equal(view.label?.(), 'logs of all apps')
    view.actions['logs.all']()
    assert.deepEqual(requests[2].params, { target: 'api', lines: 5000 }, 'back to the selection')
  })

  test('an answer for a view switched away from is dropped', async () => {
    const { ctx, requests } = context()
    const view = createLogView(ctx)
    view.open?.()
    const all = view.actions['logs.all']()
    requests[1].answer([entry(1, 'jobs', 2, 'for all')])
    await all
    requests[0].answer([entry(1, 'api', 0, 'late, for api')])
    await new Promise((resolve) => setImmediate(resolve))
    assert.match(view.render(60, 5), /for all/)
    assert.doesNotMatch(view.render(60, 5), /late/)
  })

  test('a search being typed takes the keys; closing drops the lines', async () => {
    const { ctx, requests } = context()
    const view = createLogView(ctx)
    const opened = view.open?.()
    requests[0].answer([entry(1, 'api', 0, 'one'), entry(2, 'api', 0, 'two')])
    await opened
    view.actions['logs.search']()
    assert.equal(view.typing?.(), true)
    for (const key of ['t', 'w', 'o', 'enter']) view.type?.(key, key.length === 1 ? key : undefined)
    assert.equal(view.typing?.(), false)
    assert.match(view.render(60, 5), /"two" 1\/1/)
    view.close?.()
    assert.equal(view.render(60, 5), '')
    assert.equal(view.typing?.(), false)
  })

  test('the events view asks for the app\'s events and takes new ones from the stream', async () => {
    const { ctx, requests } = context()
    const view = createEventsView(ctx)
    const opened = view.open?.()
    assert.deepEqual(requests.map((r) => [r.method, r.params]), [['events.list', { target: 'api', limit: 1000 }]])
    const event = (/** @type {number} */ seq, /** @type {string} */ message) => ({ seq, at: 0, kind: 'restarting', level: /** @type {const} */ ('warn'), app: 'api', id: 0, instance: 0, message, data: {} })
    requests[0].answer({ events: [event(1, 'exited with code 3; restarting in 100 ms')], apps: ['api'] })
    await opened
    view.onEvent?.(event(2, 'exited with code 4; restarting in 150 ms'))
    const page = view.render(100, 6)
    view.close?.()
    assert.match(page, /api:0 +restarting +exited with code 3/)
    assert.match(page, /api:0 +restarting +exited with code 4/)
    assert.match(page, /following · 2 events/)
  })
})
