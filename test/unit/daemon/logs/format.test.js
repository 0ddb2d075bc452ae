// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { formatDate, formatLine } from '../../../../daemon/logs/format.js'

// A zone with a half-hour offset and no daylight saving, so every token is checked for real.
process.env.TZ = 'Asia/Kolkata'

const T = Date.UTC(2026, 0, 5, 20, 4, 9, 7) // 2026-01-06 01:34:09.007 in Kolkata (+05:30)

describe('formatDate', () => {
  /** @type {Array<[string, string]>} */
  const cases = [
    ['YYYY-MM-DD HH:mm:ss', '2026-01-06 01:34:09'],
    ['YYYY-MM-DDTHH:mm:ss.SSSZ', '2026-01-06T01:34:09.007+05:30'],
    ['YY/M/D H:m:s', '26/1/6 1:34:9'],
    ['hh:mm A', '01:34 AM'],
    ['h a', '1 am'],
    ['ZZ', '+0530'],
    ['X', String(Math.floor(T / 1000))],
    ['x', String(T)],
    ['[YYYY is] YYYY', 'YYYY is 2026'],
    ['-- // ::', '-- // ::'],
    ['s [s]', '9 s']
  ]
  for (const [pattern, expected] of cases) {
    test(`${pattern} -> ${expected}`, () => assert.equal(formatDate(T, pattern), expected))
  }
  test('12 pm and 12 am', () => {
    assert.equal(formatDate(Date.UTC(2026, 0, 5, 6, 30), 'hh A'), '12 PM')
    assert.equal(formatDate(Date.UTC(2026, 0, 5, 18, 30), 'hh a'), '12 am')
  })
})

describe('formatLine', () => {
  const entry = { time: T, app: 'api', instance: 2, stream: 'err', line: 'boom "x"' }
  const base = { time: false, log_type: /** @type {'raw' | 'json'} */ ('raw'), log_date_format: null }
  /** @type {Array<[string, Partial<typeof base> | { log_date_format: string }, string]>} */
  const cases = [
    ['raw', {}, 'boom "x"'],
    ['time: ISO UTC', { time: true }, '2026-01-05T20:04:09.007Z: boom "x"'],
    ['log_date_format implies time', { log_date_format: 'YYYY-MM-DD HH:mm' }, '2026-01-06 01:34: boom "x"'],
    ['json', { log_type: 'json' }, '{"app":"api","instance":2,"stream":"err","time":"2026-01-05T20:04:09.007Z","message":"boom \\"x\\""}'],
    ['json with a date format', { log_type: 'json', log_date_format: 'YYYY' }, '{"app":"api","instance":2,"stream":"err","time":"2026","message":"boom \\"x\\""}']
  ]
  for (const [name, options, expected] of cases) {
    test(name, () => assert.equal(formatLine(entry, { ...base, ...options }), expected))
  }
})
