// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger } from '../../../daemon/logger.js'

/** A logger writing into an array, and the lines parsed. @param {object} [options] */
function capture (options = {}) {
  /** @type {string[]} */
  const lines = []
  const logger = createLogger({ base: { pid: 42 }, write: (line) => lines.push(line), ...options })
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l)) }
}

test('lines in pino\'s shape: level, time, bindings, fields, msg; one JSON object a line', () => {
  const { logger, lines, parsed } = capture()
  logger.info({ app: 'api', n: 1, skipped: undefined }, 'starting app')
  logger.warn('plain message')
  logger.child({ app: 'api', id: 3 }).error({ code: 'X' }, 'failed')
  assert.ok(lines.every((l) => l.endsWith('}\n') && !l.slice(0, -1).includes('\n')))
  const [a, b, c] = parsed()
  assert.deepEqual(Object.keys(a), ['level', 'time', 'pid', 'app', 'n', 'msg'])
  assert.deepEqual({ ...a, time: 0 }, { level: 30, time: 0, pid: 42, app: 'api', n: 1, msg: 'starting app' })
  assert.ok(Math.abs(a.time - Date.now()) < 10_000)
  assert.deepEqual({ ...b, time: 0 }, { level: 40, time: 0, pid: 42, msg: 'plain message' })
  assert.deepEqual({ ...c, time: 0 }, { level: 50, time: 0, pid: 42, app: 'api', id: 3, code: 'X', msg: 'failed' })
})

test('errors as pino\'s serializer writes them: type, message, stack, own fields, cause', () => {
  const { logger, parsed } = capture()
  const err = Object.assign(new TypeError('bad thing', { cause: new Error('root') }), { code: 'E_BAD' })
  logger.error({ err }, 'request failed')
  logger.warn(new RangeError('alone'))
  const [a, b] = parsed()
  assert.equal(a.err.type, 'TypeError')
  assert.equal(a.err.message, 'bad thing')
  assert.equal(a.err.code, 'E_BAD')
  assert.match(a.err.stack, /TypeError: bad thing/)
  assert.equal(a.err.cause.message, 'root')
  assert.equal(b.err.type, 'RangeError')
  assert.equal(b.msg, 'alone')
})

test('below the level nothing is written; silent writes nothing; odd values do not throw', () => {
  const { logger, lines } = capture()
  logger.debug('hidden')
  assert.equal(lines.length, 0)
  const silent = capture({ level: 'silent' })
  silent.logger.error('x')
  assert.equal(silent.lines.length, 0)
  /** @type {any} */
  const cyclic = { name: 'c' }
  cyclic.self = cyclic
  logger.info({ cyclic, big: 10n }, 'odd')
  const line = JSON.parse(lines[0])
  assert.match(line.cyclic, /unserializable/)
  assert.equal(line.big, '10')
})
