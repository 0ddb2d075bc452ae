// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { formatBytes, formatDuration, paint, renderTable, renderWorkers } from '../../../client/format.js'

// Colour is off when stdout is not a TTY; NO_COLOR makes sure of it for any runner.
process.env.NO_COLOR = '1'

const SECOND = 1000
const MINUTE = 60 * SECOND
const HOUR = 60 * MINUTE
const DAY = 24 * HOUR

describe('formatDuration', () => {
  const cases = [
    [-5, '0s'], [0, '0s'], [999, '0s'], [SECOND, '1s'], [59 * SECOND + 999, '59s'],
    [MINUTE, '1m'], [59 * MINUTE + 59 * SECOND, '59m'], [HOUR, '1h'], [23 * HOUR + 59 * MINUTE, '23h'],
    [DAY, '1d'], [400 * DAY, '400d']
  ]
  for (const [ms, expected] of cases) {
    test(`${ms} ms -> ${expected}`, () => assert.equal(formatDuration(Number(ms)), expected))
  }
})

describe('formatBytes', () => {
  const cases = [
    [0, '0b'], [NaN, '0b'], [1, '1b'], [1023, '1023b'], [1024, '1.0kb'], [1536, '1.5kb'],
    [99.94 * 1024, '99.9kb'], [100 * 1024, '100kb'], [1024 ** 2 - 1, '1024kb'], [1024 ** 2, '1.0mb'],
    [52_428_800, '50.0mb'], [1.5 * 1024 ** 3, '1.5gb'], [2 * 1024 ** 4, '2.0tb'], [1024 ** 5, '1024tb']
  ]
  for (const [bytes, expected] of cases) {
    test(`${bytes} -> ${expected}`, () => assert.equal(formatBytes(Number(bytes)), expected))
  }
})

describe('renderTable', () => {
  test('pads every column to its widest cell, two spaces apart, no trailing spaces', () => {
    const out = renderTable(['id', 'name', 'status'], [['0', 'api', 'online'], ['10', 'worker-long', 'errored']])
    assert.equal(out, [
      'id  name         status',
      '0   api          online',
      '10  worker-long  errored'
    ].join('\n'))
  })

  test('a header wider than its cells sets the width', () => {
    assert.equal(renderTable(['restarts', 'x'], [['1', 'y']]), 'restarts  x\n1         y')
  })

  test('no escape codes with NO_COLOR', () => {
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(renderTable(['a'], [['b']]), /\u001b/)
  })

  test('colour codes in a cell do not count toward its width', () => {
    const green = paint('green', 'on', true)
    const out = renderTable(['status', 'n'], [[green, '1'], ['stopped', '2']])
    assert.equal(out, `status   n\n${green}       1\nstopped  2`)
  })

  test('headers only', () => assert.equal(renderTable(['id', 'name'], []), 'id  name'))
})

describe('renderWorkers', () => {
  test('no rows says how to start one', () => {
    assert.equal(renderWorkers([]), 'no apps (start one with: sup start app.js)')
  })

  test('one row per worker with formatted figures', () => {
    /** @type {import('../../../ipc/methods.js').WorkerRow[]} */
    const rows = [
      { id: 0, name: 'api', instance: 0, pid: 4242, status: 'online', mode: 'cluster', restarts: 2, uptime: 90 * SECOND, cpu: 12.6, memory: 52_428_800, unstable_restarts: 0, retry_at: null, last_exit: null },
      { id: 1, name: 'api', instance: 1, pid: null, status: 'errored', mode: 'cluster', restarts: 17, uptime: 0, cpu: 0, memory: 0, unstable_restarts: 17, retry_at: 1, last_exit: null }
    ]
    assert.equal(renderWorkers(rows), [
      'id  name  mode     pid   status   restarts  uptime  cpu  mem',
      '0   api   cluster  4242  online   2         1m      13%  50.0mb',
      '1   api   cluster  -     errored  17        0s      0%   0b'
    ].join('\n'))
  })
})
