// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { columnsFor, cutAtWord, escapeTags, lastExitOf, listWidthFor, niceCeil, renderHeader, renderHostTotals, fit, formatCpu, renderChart, renderFigures, renderFooter, renderLine, renderListHeader, renderLogs } from '../../../../client/monit/render.js'

const plain = { color: false, unicode: true }
/** Remove blessed tags, to measure what a person sees. @param {string} s */
const visible = (s) => s.replace(/\{\/?[a-z-]+\}/g, '').replace(/\{open\}/g, '{').replace(/\{close\}/g, '}')

/** @returns {import('../../../../client/monit/model.js').WorkerView} */
const worker = (/** @type {number} */ id, /** @type {any} */ extra = {}) => ({ id, name: 'api', instance: id, pid: 4000 + id, status: 'online', mode: 'cluster', restarts: 1, uptime: 90_000, cpu: 2.5, memory: 50 * 1024 * 1024, unstable_restarts: 0, retry_at: null, last_exit: null, ...extra })

describe('fit', () => {
  /** @type {Array<[string, number, 'left' | 'right', string]>} */
  const rows = [['abc', 5, 'left', 'abc  '], ['abc', 5, 'right', '  abc'], ['abcdef', 4, 'left', 'abc~'], ['abc', 0, 'left', '']]
  for (const [text, width, align, expected] of rows) test(`${text} in ${width} (${align})`, () => assert.equal(fit(text, width, align), expected))
})

test('formatCpu keeps one decimal below 10%', () => {
  assert.deepEqual([0, 2.54, 9.96, 12.4, 250].map(formatCpu), ['0.0%', '2.5%', '10.0%', '12%', '250%'])
})

test('escapeTags keeps braces from a log line out of blessed\'s tag parser', () => {
  assert.equal(escapeTags('{"a":1}'), '{open}"a":1{close}')
})

describe('the list pane', () => {
  for (const width of [44, 48, 78]) {
    test(`every line is exactly ${width} columns`, () => {
      assert.equal(renderListHeader(width).length, width)
      const app = { kind: /** @type {const} */ ('app'), name: 'api', workers: [worker(0), worker(1, { status: 'errored', pid: null })], expanded: true }
      for (const line of [app, { kind: /** @type {const} */ ('worker'), worker: worker(0), last: false }]) {
        assert.equal(visible(renderLine(line, width, false, plain)).length, width)
        assert.equal(visible(renderLine(line, width, true, plain)).length, width)
      }
    })
  }

  test('sup monit --host: an app line starts with its host; the hosts\' totals fit the width', () => {
    const app = { kind: /** @type {const} */ ('app'), name: 'api', key: 'web2\u0000api', host: 'web2', workers: [worker(0)], expanded: false }
    assert.match(renderLine(app, 60, false, plain), /^▸ web2 api \(1\) +online /)
    const totals = new Map([['web1', { apps: 2, workers: 3, online: 3, cpu: 1.5, memory: 50 * 1024 * 1024 }], ['web2', { apps: 1, workers: 2, online: 1, cpu: 12, memory: 0 }]])
    const line = renderHostTotals(totals, 200, true)
    assert.match(line, /^web1: 2 apps 3\/3 up 1\.5% \S+ · web2: 1 app 1\/2 up 12% \S+$/)
    assert.equal(renderHostTotals(totals, line.length - 1, true), line.split(' · ')[0])
  })

  test('an app line sums its workers and says how many are up', () => {
    const app = { kind: /** @type {const} */ ('app'), name: 'api', workers: [worker(0), worker(1, { status: 'errored', pid: null, cpu: 0, memory: 0 })], expanded: false }
    assert.match(renderLine(app, 60, false, plain), /^▸ api \(2\) +1\/2 up +2\.5% +50\.0mb +2 +1m$/)
  })

  test('status is coloured only when colour is on, and the selection is inverse', () => {
    const line = { kind: /** @type {const} */ ('worker'), worker: worker(3, { status: 'errored' }), last: true }
    assert.match(renderLine(line, 60, false, { color: true, unicode: true }), /\{red-fg\}errored +\{\/red-fg\}/)
    assert.doesNotMatch(renderLine(line, 60, false, plain), /\{red-fg\}/)
    assert.match(renderLine(line, 60, true, plain), /^\{inverse\}.*\{\/inverse\}$/)
  })

  test('an app that keeps crashing is not a green online: its status says how often, in red', () => {
    const last = { seq: 9, at: 1, kind: 'restarting', level: /** @type {const} */ ('warn'), app: 'api', id: 0, instance: 0, message: 'exited with code 3; restarting in 0 ms', data: { code: 3, signal: null } }
    const app = { kind: /** @type {const} */ ('app'), name: 'api', workers: [worker(0, { restarts: 180 })], expanded: false, crashing: { count: 5, last } }
    // With its last exit after the name: the code, then why (cut to the column).
    assert.match(renderLine(app, 60, false, plain), /^▸ api \(1\) exit 3: exited ~ crash×5 +2\.5% +50\.0mb +180 +1m$/)
    assert.match(renderLine(app, 100, false, plain), /^▸ api \(1\) exit 3: exited with code 3; restarting in 0 ms +crash×5 /)
    assert.match(renderLine(app, 60, false, { color: true, unicode: true }), /\{red-fg\} exit 3: exited ~\{\/red-fg\} \{red-fg\}crash×5 +\{\/red-fg\}/)
    assert.match(renderLine(app, 60, false, { color: false, unicode: false }), /crashx5/)
    const figures = renderFigures({ label: 'api', workers: [worker(0)], crashing: { count: 5, last } }, { cpu: [], memory: [], loop_p99: [], heap_used: [] }, 80, 12, plain)
    assert.match(figures, /crashing: 5 in 60s, last: exited with code 3; restarting in 0 ms/)
  })

  test('without unicode the tree is drawn in ASCII', () => {
    const line = { kind: /** @type {const} */ ('worker'), worker: worker(3), last: true }
    assert.match(renderLine(line, 60, false, { color: false, unicode: false }), /^ {2}` #3/)
  })
})

describe('renderChart', () => {
  test('scales values into eighths of the given rows, newest on the right', () => {
    assert.deepEqual(renderChart([0, 50, 100], 5, 1, 100, true), ['   ▄█'])
    assert.deepEqual(renderChart([25, 100], 2, 2, 100, true), [' █', '▄█'])
  })

  test('a small non-zero value still shows', () => {
    assert.deepEqual(renderChart([0.1], 1, 1, 100, true), ['▁'])
  })

  test('only the newest values that fit are shown, and ASCII without unicode', () => {
    assert.deepEqual(renderChart([100, 0, 100], 2, 1, 100, false), [' #'])
  })
})

test('the figures pane shows the selection, its charts and the agent figures, within its height', () => {
  const w = worker(0, { loop_delay: { p50: 0.2, p99: 12, max: 30 }, heap: { used: 10 * 1024 * 1024, total: 20 * 1024 * 1024 }, processes: 2 })
  const text = renderFigures({ label: 'api[0] #0', workers: [w] }, { cpu: [1, 2], memory: [10, 20], loop_p99: [12, 12], heap_used: [1, 1] }, 70, 10, plain)
  const lines = text.split('\n')
  assert.equal(lines.length, 10)
  assert.match(visible(lines[0]), /^api\[0\] #0 +cpu 2\.5% +mem 50\.0mb$/)
  assert.match(text, /loop p50\/p99 0\.2ms\/12ms · heap 10\.0mb\/20\.0mb · 2 proc · pid 4000/)
  assert.ok(lines.every((l) => visible(l).length <= 70), lines.join('\n'))
})

test('the figures pane says how many workers are not ready and what their liveness probes restarted', () => {
  const a = worker(0, { ready: false, liveness_restarts: 2, last_restart: { reason: 'liveness probe failed: timed out after 1000 ms', at: 5 } })
  const b = worker(1, { ready: true, liveness_restarts: 1, last_restart: { reason: 'liveness probe failed: GET /healthz answered 500', at: 9 } })
  const text = renderFigures({ label: 'api', workers: [a, b] }, { cpu: [], memory: [], loop_p99: [], heap_used: [] }, 120, 10, plain)
  assert.match(text, /1 not ready · 3 liveness restarts \(GET \/healthz answered 500\)/)
  const quiet = renderFigures({ label: 'api', workers: [worker(0, {})] }, { cpu: [], memory: [], loop_p99: [], heap_used: [] }, 120, 10, plain)
  assert.doesNotMatch(quiet, /not ready|liveness/)
})

test('the log pane marks stderr and stdout and escapes tags in lines', () => {
  const text = renderLogs([
    { time: 0, app: 'api', id: 0, instance: 0, stream: 'out', line: 'hello {world}' },
    { time: 0, app: 'api', id: 0, instance: 0, stream: 'err', line: 'boom' }
  ], 40, { color: true, unicode: true })
  assert.equal(text, '{cyan-fg}api[0] out{/cyan-fg} hello {open}world{close}\n{red-fg}api[0] err{/red-fg} boom')
})

test('the log pane and every escaped text show an app\'s control characters instead of sending them to the terminal', () => {
  const text = renderLogs([{ time: 0, app: 'api', id: 0, instance: 0, stream: 'out', line: '\u001b]0;t\u0007\u009b2J' }], 40, { color: false, unicode: true })
  assert.equal(text, 'api[0] out \\x1b]0;t\\x07\\x9b2J')
  assert.equal(escapeTags('a\u001b[2J{b}'), 'a\\x1b[2J{open}b{close}')
})

describe('the footer', () => {
  const hints = ['? help', 'q quit', '/ filter', 'r restart', 'x stop']
  test('shows every hint when there is room', () => {
    const f = renderFooter(hints, '', 80, true)
    assert.equal(f.keys, '? help · q quit · / filter · r restart · x stop')
    assert.equal((f.keys + f.gap + f.message).length, 80)
  })
  for (const width of [40, 50, 60, 80]) {
    test(`with a message at ${width} columns: whole hints only, and the message whole`, () => {
      const message = 'restarted web[0] #0'
      const f = renderFooter(hints, message, width, false)
      assert.equal(f.message, message)
      assert.ok((f.keys + f.gap + f.message).length <= width)
      const shownHints = f.keys === '' ? [] : f.keys.split(' | ')
      assert.deepEqual(shownHints, hints.slice(0, shownHints.length), 'no hint cut')
    })
  }
  test('a message longer than the line is cut at a word', () => {
    assert.equal(cutAtWord('the daemon went away; waiting for it', 20), 'the daemon went~')
    const f = renderFooter(hints, 'the daemon went away; waiting for it', 20, true)
    assert.equal(f.keys, '')
    assert.equal(f.message, 'the daemon went~')
  })
})

test('the list header marks the sort column with its direction', () => {
  assert.match(renderListHeader(60, { label: 'cpu', descending: true }), /cpu↓/)
  assert.match(renderListHeader(60, { label: 'name', descending: false }, false), /^name\^/)
  assert.equal(renderListHeader(60, { label: 'mem', descending: true }).length, 60)
})

describe('the last exit of a crashing app, in a word', () => {
  const event = (/** @type {string} */ kind, /** @type {any} */ data) => ({ seq: 1, at: 1, kind, level: /** @type {const} */ ('warn'), app: 'a', id: 0, instance: 0, message: '', data })
  /** @type {Array<[string, any, string]>} */
  const rows = [['restarting', { code: 3, signal: null }, 'exit 3'], ['crash-loop', { code: null, signal: 'SIGSEGV' }, 'SIGSEGV'], ['spawn-error', { code: 'EACCES' }, 'EACCES'], ['memory-limit', { memory: 1, limit: 1 }, 'memory limit'], ['liveness', { reason: 'x' }, 'liveness'], ['killed', { kill_timeout: 1 }, 'SIGKILL']]
  for (const [kind, data, expected] of rows) test(`${kind} ${JSON.stringify(data)}: ${expected}`, () => assert.equal(lastExitOf(event(kind, data)), expected))
})

describe('the name column', () => {
  /** @type {Array<[number, string[], number]>} */
  const rows = [[38, ['status', 'cpu', 'mem'], 14], [50, ['status', 'cpu', 'mem', 'rst', 'up'], 16], [78, ['status', 'cpu', 'mem', 'rst', 'up'], 44]]
  for (const [width, columns, name] of rows) {
    test(`${width} wide: ${columns.join(' ')}, names ${name} wide`, () => {
      const shown = columnsFor(width)
      assert.deepEqual(shown.columns.map(([label]) => label), columns)
      assert.equal(shown.name, name)
      assert.equal(renderListHeader(width).length, width)
      const app = { kind: /** @type {const} */ ('app'), name: 'billing-export', workers: [worker(0)], expanded: false }
      assert.equal(visible(renderLine(app, width, false, plain)).length, width)
      assert.match(renderLine(app, width, false, plain), /^▸ billing-ex/)
    })
  }
  test('the list asks for the room its names need, 40 at most', () => {
    assert.equal(listWidthFor(5), 24 + 34)
    assert.equal(listWidthFor(30), 30 + 34)
    assert.equal(listWidthFor(90), 40 + 34)
  })
})

describe('the header', () => {
  const host = { cpu: 12.5, cores: 2, used: 3 * 1024 ** 3, total: 8 * 1024 ** 3, load: [0.5, 0.25, 0.125] }
  test('says the host\'s cpu, memory and load, then the apps and workers', () => {
    assert.equal(renderHeader(host, { apps: 3, workers: 4, online: 3 }, 200, true), 'host cpu 13% of 2 cores · mem 3.0gb/8.0gb (38%) · load 0.50 0.25 0.13 · 3 apps, 3/4 workers online')
  })
  test('drops whole parts that do not fit, never a part cut', () => {
    assert.equal(renderHeader(host, { apps: 1, workers: 1, online: 1 }, 40, false), 'host cpu 13% of 2 cores')
    assert.equal(renderHeader({ ...host, cpu: null }, { apps: 1, workers: 1, online: 1 }, 80, false), 'host cpu - of 2 cores | mem 3.0gb/8.0gb (38%) | load 0.50 0.25 0.13')
  })
})

describe('the charts', () => {
  const series = { cpu: [1, 2, 3], memory: [40, 45, 50].map((m) => m * 1024 * 1024), loop_p99: [], heap_used: [] }
  test('have their scale on the left: the top, what they show, 0', () => {
    const text = visible(renderFigures({ label: 'api', workers: [worker(0)] }, series, 60, 14, plain))
    assert.match(text, /^ +100%┤/m)
    assert.match(text, /^ +cpu┤/m)
    assert.match(text, /^ +0%┤/m)
    assert.match(text, /^memory \(no max_memory_restart\) *$/m)
    assert.match(text, /^ *80\.0mb┤/m, 'memory without a limit: a round figure above the highest value')
    assert.match(text, /^ +mem┤/m)
    assert.ok(text.split('\n').every((l) => l.length <= 60))
  })
  test('a chart of one row still says what it shows (the memory chart at 80x24)', () => {
    // 6 rows inside the figures pane at 80x24: the cpu chart gets 2, the memory chart 1.
    const lines = visible(renderFigures({ label: 'api', workers: [worker(0)] }, series, 78, 6, plain)).split('\n')
    assert.deepEqual(lines.filter((l) => l.includes('┤')).map((l) => l.split('┤')[0].trim()), ['100%', 'cpu 0%', 'mem'])
  })
  test('memory is drawn against max_memory_restart when the app has one (times its workers)', () => {
    const text = visible(renderFigures({ label: 'api', workers: [worker(0, { memory: 50 * 1024 * 1024 }), worker(1, { memory: 50 * 1024 * 1024 })], limit: 400 * 1024 * 1024 }, series, 80, 14, plain))
    assert.match(text, /^memory of max_memory_restart \(400mb for 2 workers\): 25% *$/m)
    assert.match(text, /^ +400mb┤/m)
  })
  test('cpu over one core is scaled to a round figure above it', () => {
    const text = visible(renderFigures({ label: 'api', workers: [worker(0)] }, { ...series, cpu: [130, 90] }, 60, 14, { color: false, unicode: false }))
    assert.match(text, /^ +150%\|/m)
  })
  /** @type {Array<[number, number]>} */
  const rows = [[0, 1], [0.7, 0.8], [1, 1], [1.2, 1.5], [2.2, 2.5], [3, 3], [7, 8], [130, 150], [260, 300], [900, 1000]]
  for (const [value, top] of rows) test(`niceCeil(${value}) = ${top}`, () => assert.equal(niceCeil(value), top))
})

test('a line chart keeps only the top cell of each column (memory without a limit)', () => {
  assert.deepEqual(renderChart([8, 8], 2, 2, 10, true), ['▅▅', '██'])
  assert.deepEqual(renderChart([8, 8], 2, 2, 10, true, true), ['▅▅', '  '])
})
