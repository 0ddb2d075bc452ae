// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MonitModel } from '../../../../client/monit/model.js'

/**
 * @param {number} id
 * @param {string} name
 * @param {Partial<import('../../../../client/monit/model.js').WorkerView>} [extra]
 * @returns {import('../../../../client/monit/model.js').WorkerView}
 */
const row = (id, name, extra = {}) => ({ id, name, instance: id, pid: 1000 + id, status: 'online', mode: 'cluster', restarts: 0, uptime: 1000, cpu: 0, memory: 0, unstable_restarts: 0, retry_at: null, last_exit: null, ...extra })

function twoApps () {
  const model = new MonitModel()
  model.setWorkers([row(0, 'api'), row(1, 'api'), row(2, 'jobs')])
  return model
}

/** @param {MonitModel} model */
const shown = (model) => model.lines().map((l) => l.kind === 'app' ? `${l.expanded ? 'v' : '>'} ${l.name}` : `  #${l.worker.id}`)

describe('MonitModel', () => {
  test('apps start collapsed, in the order of their first worker, with the first one selected', () => {
    const model = twoApps()
    assert.deepEqual(shown(model), ['> api', '> jobs'])
    assert.deepEqual(model.selected()?.target, 'api')
  })

  test('the top line stays selected until the operator moves, whichever app was heard of first', () => {
    const model = new MonitModel()
    // monit subscribes, then lists: a crash-looping app's state can come first.
    model.applyState(row(2, 'jobs'))
    assert.equal(model.selected()?.app, 'jobs')
    model.setWorkers([row(0, 'api'), row(1, 'api'), row(2, 'jobs')])
    assert.equal(model.selected()?.app, 'api')
    model.setSort('name')
    model.setSort('name')
    assert.equal(model.selected()?.app, 'jobs', 'the top line after a sort')
    model.move(1)
    model.setSort('name')
    assert.equal(model.selected()?.app, 'api', 'once moved, the selection stays with its app')
    model.applyState(row(3, 'cron'))
    assert.equal(model.selected()?.app, 'api')
  })

  test('Enter expands the selected app; moving then selects its workers', () => {
    const model = twoApps()
    model.toggle()
    assert.deepEqual(shown(model), ['v api', '  #0', '  #1', '> jobs'])
    model.move(1)
    assert.deepEqual(model.selected(), { label: 'api[0] #0', target: '0', app: 'api', host: null, size: 2, workers: [model.workers.get(0)], crashing: null, limit: null })
    model.move(5)
    assert.equal(model.selected()?.target, 'jobs', 'moving stops at the last line')
    model.move(-10)
    assert.equal(model.selected()?.target, 'api')
  })

  test('Enter on a worker collapses its app and selects the app', () => {
    const model = twoApps()
    model.toggle()
    model.move(2)
    model.toggle()
    assert.deepEqual(shown(model), ['> api', '> jobs'])
    assert.equal(model.selected()?.target, 'api')
  })

  test('a deleted worker that was selected leaves the selection on its app', () => {
    const model = twoApps()
    model.toggle()
    model.move(2)
    model.applyState(row(1, 'api', { status: /** @type {any} */ ('deleted') }))
    assert.equal(model.selected()?.target, 'api')
    assert.deepEqual(shown(model), ['v api', '  #0', '> jobs'])
  })

  test('metrics events update the figures and the history', () => {
    const model = twoApps()
    model.applyMetrics({ ...row(0, 'api'), cpu: 12, memory: 100, loop_delay: { p50: 1, p99: 4, max: 5 }, heap: { used: 10, total: 20 } })
    model.applyMetrics({ ...row(1, 'api'), cpu: 3, memory: 50, loop_delay: null, heap: null })
    assert.equal(model.workers.get(0)?.cpu, 12)
    assert.deepEqual(model.selectedSeries(), { cpu: [15], memory: [150], loop_p99: [4], heap_used: [10] })
  })

  test('an app\'s series sums its workers aligned on the newest point', () => {
    const model = twoApps()
    model.setHistory([
      { id: 0, cpu: [1, 2, 3], memory: [10, 20, 30], loop_p99: [null, 1, 2], heap_used: [null, null, 5] },
      { id: 1, cpu: [10, 20], memory: [100, 200], loop_p99: [7, 3], heap_used: [1, 1] }
    ])
    assert.deepEqual(model.selectedSeries(), { cpu: [1, 12, 23], memory: [10, 120, 230], loop_p99: [null, 7, 3], heap_used: [null, 1, 6] })
  })

  test('the log pane shows the selection\'s lines only, newest last', () => {
    const model = twoApps()
    const log = (/** @type {number} */ id, /** @type {string} */ app, /** @type {string} */ line) => model.applyLog({ time: 0, app, id, instance: id, stream: 'out', line })
    log(0, 'api', 'a')
    log(2, 'jobs', 'b')
    log(1, 'api', 'c')
    log(0, 'api', 'd')
    assert.deepEqual(model.selectedLogs(10).map((e) => e.line), ['a', 'c', 'd'])
    assert.deepEqual(model.selectedLogs(2).map((e) => e.line), ['c', 'd'])
    model.toggle()
    model.move(2)
    assert.deepEqual(model.selectedLogs(10).map((e) => e.line), ['c'])
  })

  test('past lines merge with the ones the stream brought meanwhile', () => {
    const model = twoApps()
    const entry = (/** @type {number} */ time, /** @type {string} */ line) => ({ time, app: 'api', id: 0, instance: 0, stream: /** @type {const} */ ('out'), line })
    model.applyLog(entry(5, 'c'))
    model.applyLog(entry(6, 'd'))
    model.setLogs('api', [entry(4, 'a'), entry(5, 'c')])
    assert.deepEqual(model.selectedLogs(10).map((e) => e.line), ['a', 'c', 'd'])
  })

  test('no workers, no selection', () => {
    const model = new MonitModel()
    model.setWorkers([])
    assert.equal(model.selected(), null)
    assert.deepEqual(model.selectedSeries(), { cpu: [], memory: [], loop_p99: [], heap_used: [] })
  })
})

describe('crash loops', () => {
  /** @param {number} seq @param {number} at @param {string} [kind] */
  const event = (seq, at, kind = 'restarting') => ({ seq, at, kind, level: /** @type {const} */ ('warn'), app: 'api', id: 0, instance: 0, message: `exit ${seq}`, data: {} })
  test('two crashes within a minute make an app crashing, with the newest reason; one alone does not', () => {
    const model = new MonitModel()
    let now = 100_000
    model.now = () => now
    model.setWorkers([({ id: 0, name: 'api', instance: 0, status: 'online', restarts: 0 })])
    model.applyEvent(event(1, 90_000))
    assert.equal(model.lines()[0].kind === 'app' && model.lines()[0].crashing, null)
    model.applyEvent(event(2, 99_000))
    model.applyEvent(event(2, 99_000))
    model.applyEvent(event(3, 99_500, 'online'))
    const line = model.lines()[0]
    assert.ok(line.kind === 'app' && line.crashing)
    assert.equal(line.crashing.count, 2)
    assert.equal(line.crashing.last.message, 'exit 2')
    assert.equal(model.selected()?.crashing?.count, 2)
    now = 160_000
    const later = model.lines()[0]
    assert.equal(later.kind === 'app' && later.crashing, null, 'a minute later it is calm again')
  })

  test('an errored app with one crash in the window is crashing', () => {
    const model = new MonitModel()
    model.now = () => 100_000
    model.setWorkers([({ id: 0, name: 'api', instance: 0, status: 'errored', restarts: 16 })])
    model.applyEvent(event(1, 99_000, 'crash-loop'))
    const line = model.lines()[0]
    assert.equal(line.kind === 'app' && line.crashing?.count, 1)
  })

  test('the filter keeps apps whose name, namespace or a worker\'s status has the text, in any case', () => {
    const model = new MonitModel()
    model.setWorkers([row(0, 'api', { namespace: 'shop' }), row(1, 'jobs', { status: 'errored' }), row(2, 'mailer', { namespace: 'ops' })])
    /** @type {Array<[string, string[]]>} */
    const cases = [['API', ['> api']], ['shop', ['> api']], ['err', ['> jobs']], ['ops', ['> mailer']], ['', ['> api', '> jobs', '> mailer']], ['zzz', []]]
    for (const [text, expected] of cases) {
      model.setFilter(text)
      assert.deepEqual(shown(model), expected, text)
    }
  })

  test('a filter that hides the selection selects the first app left', () => {
    const model = twoApps()
    model.move(1)
    model.setFilter('api')
    assert.equal(model.selected()?.app, 'api')
  })

  test('sort keys order the apps; the same key again reverses; ties keep the start order', () => {
    const model = new MonitModel()
    model.setWorkers([row(0, 'b', { cpu: 5, memory: 300, restarts: 1, uptime: 10 }), row(1, 'c', { cpu: 50, memory: 100, restarts: 0, uptime: 30 }), row(2, 'a', { cpu: 20, memory: 200, restarts: 9, uptime: 20 }), row(3, 'a', { cpu: 40, memory: 0, restarts: 0, uptime: 5 })])
    assert.deepEqual(shown(model), ['> b', '> c', '> a'], 'the start order')
    /** @type {Array<[import('../../../../client/monit/model.js').SortKey, string[]]>} */
    const cases = [['cpu', ['> a', '> c', '> b']], ['memory', ['> b', '> a', '> c']], ['restarts', ['> a', '> b', '> c']], ['uptime', ['> c', '> a', '> b']], ['name', ['> a', '> b', '> c']]]
    for (const [key, expected] of cases) {
      model.setSort(key)
      assert.deepEqual(shown(model), expected, key)
      model.setSort(key)
      assert.deepEqual(shown(model), [...expected].reverse(), key + ' reversed')
      model.setSort(key)
    }
    model.setSort('cpu')
    assert.equal(model.descending(), true)
    model.setSort('name')
    assert.equal(model.descending(), false)
  })

  test('g and G go to the first and last line', () => {
    const model = twoApps()
    model.moveTo('last')
    assert.equal(model.selected()?.app, 'jobs')
    model.moveTo('first')
    assert.equal(model.selected()?.app, 'api')
  })

  test('a late sample or state of a deleted worker does not bring it back; a new start of its id does', () => {
    const model = twoApps()
    model.applyState({ ...row(2, 'jobs'), status: 'deleted' })
    model.applyMetrics({ ...row(2, 'jobs', { status: 'stopped' }), cpu: 0, memory: 0, loop_delay: null, heap: null })
    // The daemon sends `stopped` after `deleted` (sup delete, a scale-down's retired worker).
    model.applyState(row(2, 'jobs', { status: 'stopped' }))
    assert.deepEqual(shown(model), ['> api'])
    assert.equal(model.history.has(2), false)
    model.applyState(row(2, 'jobs', { status: 'starting' }))
    assert.deepEqual(shown(model), ['> api', '> jobs'])
  })

  test('sup monit --host: api on two hosts is two apps, each with its host; / matches the host too', () => {
    const model = new MonitModel()
    model.setWorkers([row(0, 'api', { host: 'web1', cpu: 2, memory: 100 }), row(1, 'api', { host: 'web2', cpu: 3, memory: 200 }), row(2, 'api', { host: 'web2', status: 'stopped' }), row(3, 'jobs', { host: 'web1' })])
    const apps = () => model.lines().map((l) => l.kind === 'app' ? `${l.host} ${l.name} ${l.workers.length}` : `  #${l.worker.id}`)
    assert.deepEqual(apps(), ['web1 api 1', 'web2 api 2', 'web1 jobs 1'])
    model.move(1)
    assert.deepEqual({ ...model.selected(), workers: undefined }, { label: 'web2 api', target: 'api', app: 'api', host: 'web2', size: 2, workers: undefined, crashing: null, limit: null })
    model.toggle()
    assert.deepEqual(apps(), ['web1 api 1', 'web2 api 2', '  #1', '  #2', 'web1 jobs 1'], 'only web2\'s api expands')
    assert.deepEqual(Object.fromEntries(model.hostTotals()), {
      web1: { apps: 2, workers: 2, online: 2, cpu: 2, memory: 100 },
      web2: { apps: 1, workers: 2, online: 1, cpu: 3, memory: 200 }
    })
    model.setFilter('WEB1')
    assert.deepEqual(apps(), ['web1 api 1', 'web1 jobs 1'])
    model.setFilter('jobs')
    assert.deepEqual(apps(), ['web1 jobs 1'])
  })

  test('sup monit --host: a host\'s crashes and log lines stay with its own app', () => {
    const model = new MonitModel()
    model.setWorkers([row(0, 'api', { host: 'web1' }), row(1, 'api', { host: 'web2' })])
    const at = model.now()
    for (const seq of [1, 2]) model.applyEvent(/** @type {any} */ ({ seq, at, kind: 'restarting', app: 'api', host: 'web2', message: 'exit 1' }))
    model.applyLog(/** @type {any} */ ({ app: 'api', host: 'web1', id: 0, time: at, stream: 'out', line: 'from web1' }))
    const crashing = model.lines().map((l) => l.kind === 'app' ? `${l.host} ${l.crashing?.count ?? 0}` : '')
    assert.deepEqual(crashing, ['web1 0', 'web2 2'])
    assert.deepEqual(model.selectedLogs(10).map((e) => e.line), ['from web1'])
    model.move(1)
    assert.deepEqual(model.selectedLogs(10), [])
  })
})
