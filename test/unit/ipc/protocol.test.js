// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../ipc/app-config.js'
import { SupError } from '../../../ipc/errors.js'
import { METHODS, PROTOCOL_VERSION } from '../../../ipc/methods.js'
import { decodeReply, decodeRequest, encodeError, encodeEvent, encodeRequest, encodeResult } from '../../../ipc/protocol.js'
import { HANDLERS } from '../../../daemon/handlers.js'

/** A complete, valid AppConfig as the CLI sends it in app.start. */
const app = (/** @type {Record<string, unknown>} */ overrides = {}) => ({
  ...structuredClone({ ...APP_DEFAULTS }),
  name: 'api',
  script: '/srv/api/server.js',
  cwd: '/srv/api',
  ...overrides
})

/** The smallest valid params of every method: one row per method in METHODS. */
/** @type {Record<string, Record<string, unknown>>} */
const VALID_PARAMS = {
  hello: { protocol: PROTOCOL_VERSION },
  'daemon.ping': {},
  'daemon.kill': {},
  'app.start': { apps: [app()] },
  'app.stop': { targets: ['api'] },
  'app.restart': { targets: ['all'] },
  'app.reload': { targets: ['api'], surge: 2, maxUnavailable: 0, shellEnv: { PATH: '/bin' } },
  'app.scale': { target: 'api', count: '+2' },
  'app.delete': { targets: ['0'] },
  'app.reset': { targets: ['api'] },
  'app.list': {},
  'app.describe': { target: 'api' },
  'app.env': { target: '0' },
  'app.signal': { targets: ['api'], signal: 'SIGUSR2' },
  'logs.tail': {},
  'events.list': { target: 'api', limit: 10 },
  'logs.flush': {},
  'logs.reopen': {},
  'dump.save': { force: true },
  'dump.resurrect': { shellEnv: { PATH: '/usr/bin' } },
  'dump.status': {},
  'settings.set': { entries: [{ app: 'echo', key: 'config_var', value: 'false' }] },
  'settings.unset': { app: 'echo', key: null },
  'settings.get': {},
  'metrics.history': { target: 'api', points: 60 },
  'metrics.serve': { port: 9209, host: '127.0.0.1' },
  'metrics.close': {},
  'metrics.status': {},
  subscribe: { topics: ['log'] }
}

/**
 * @param {() => unknown} fn
 * @param {string} code
 * @returns {SupError & { requestId?: number }}
 */
function catchSupError (fn, code) {
  /** @type {unknown} */
  let caught
  assert.throws(fn, (err) => { caught = err; return true })
  assert.ok(caught instanceof SupError, `expected a SupError, got ${caught}`)
  assert.equal(caught.code, code, caught.message)
  return caught
}

const request = (/** @type {Record<string, unknown>} */ frame) => JSON.stringify({ v: PROTOCOL_VERSION, ...frame })

describe('decodeRequest', () => {
  describe('malformed frames are SUP_ERR_IPC_BAD_MESSAGE', () => {
    const rows = [
      ['not JSON', '{"v":1,'],
      ['empty', ''],
      ['JSON null', 'null'],
      ['a number', '7'],
      ['a string', '"app.list"'],
      ['an array', '[1, "app.list"]'],
      ['no id', request({ method: 'app.list' })],
      ['a string id', request({ id: '1', method: 'app.list' })],
      ['a fractional id', request({ id: 1.5, method: 'app.list' })],
      ['no method', request({ id: 1 })],
      ['a numeric method', request({ id: 1, method: 3 })]
    ]
    for (const [name, text] of rows) {
      test(name, () => {
        const err = catchSupError(() => decodeRequest(text), 'SUP_ERR_IPC_BAD_MESSAGE')
        assert.equal(err.requestId, undefined)
      })
    }

    test('not JSON keeps the parse error as the cause', () => {
      const err = catchSupError(() => decodeRequest('{'), 'SUP_ERR_IPC_BAD_MESSAGE')
      assert.ok(err.cause instanceof SyntaxError)
      assert.match(err.message, /not JSON/)
    })
  })

  describe('unknown methods are SUP_ERR_IPC_UNKNOWN_METHOD with the request id', () => {
    for (const method of ['app.nope', 'APP.LIST', '', 'toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      test(JSON.stringify(method), () => {
        const err = catchSupError(() => decodeRequest(request({ id: 41, method })), 'SUP_ERR_IPC_UNKNOWN_METHOD')
        assert.equal(err.requestId, 41)
        assert.equal(err.details.method, method)
      })
    }
  })

  describe('invalid params are SUP_ERR_IPC_INVALID_PARAMS naming the field', () => {
    /** @type {Array<[string, unknown, string]>} [method, params, expected reason] */
    const rows = [
      ['hello', {}, 'params.protocol is required'],
      ['hello', { protocol: '1' }, 'params.protocol must be a number'],
      ['daemon.ping', { extra: true }, 'params.extra is not a known field'],
      ['daemon.ping', [], 'params must be an object'],
      ['app.start', {}, 'params.apps is required'],
      ['app.start', { apps: [] }, 'params.apps needs at least 1 item(s)'],
      ['app.start', { apps: [app({ name: 'my app' })] }, 'params.apps[0].name has an invalid format'],
      ['app.start', { apps: [app(), app({ name: '-dash' })] }, 'params.apps[1].name has an invalid format'],
      ['app.start', { apps: [app({ instances: 0 })] }, 'params.apps[0].instances must be >= 1'],
      ['app.start', { apps: [app({ exec_mode: 'spawn' })] }, 'params.apps[0].exec_mode must be one of cluster, fork'],
      ['app.start', { apps: [app({ env: { PORT: 3000 } })] }, 'params.apps[0].env.PORT must be a string'],
      ['app.start', { apps: [app({ stop_exit_codes: [0, 256] })] }, 'params.apps[0].stop_exit_codes[1] must be <= 255'],
      ['app.start', { apps: [app({ max_memory_restart: 0 })] }, 'params.apps[0].max_memory_restart must be >= 1'],
      ['app.start', { apps: [app({ scirpt: 'x.js' })] }, 'params.apps[0].scirpt is not a known field'],
      ['app.start', { apps: [{ name: 'api', script: 'a.js', cwd: '/' }] }, 'params.apps[0].args is required'],
      ['app.start', { apps: [app()], shellEnv: { PATH: null } }, 'params.shellEnv.PATH must be a string'],
      ['app.stop', {}, 'params.targets is required'],
      ['app.stop', { targets: [] }, 'params.targets needs at least 1 item(s)'],
      ['app.stop', { targets: [''] }, 'params.targets[0] is shorter than 1'],
      ['app.restart', { targets: 'api' }, 'params.targets must be an array'],
      ['app.reload', { targets: ['api'], surge: -1 }, 'params.surge must be >= 0'],
      ['app.scale', { target: 'api' }, 'params.count is required'],
      ['app.describe', { target: 1 }, 'params.target must be a string'],
      ['app.signal', { targets: ['api'] }, 'params.signal is required'],
      ['logs.tail', { lines: -1 }, 'params.lines must be >= 0'],
      ['logs.tail', { stream: 'all' }, 'params.stream must be one of out, err, both'],
      ['logs.tail', { target: 5 }, 'params.target must be null'],
      ['dump.save', { force: 'yes' }, 'params.force must be a boolean'],
      ['dump.resurrect', { shellEnv: { HOME: 1 } }, 'params.shellEnv.HOME must be a string'],
      ['subscribe', { topics: ['logs'] }, 'params.topics[0] must be one of log, app.state, metrics, reload.progress, event'],
      ['events.list', { limit: 0 }, 'params.limit must be >= 1']
    ]
    for (const [method, params, reason] of rows) {
      test(`${method}: ${reason}`, () => {
        const err = catchSupError(() => decodeRequest(request({ id: 9, method, params })), 'SUP_ERR_IPC_INVALID_PARAMS')
        assert.equal(err.requestId, 9)
        assert.equal(err.details.method, method)
        assert.equal(err.details.reason, reason)
        assert.ok(err.message.includes(reason), err.message)
      })
    }
  })

  test('every method has a row of valid params here', () => {
    assert.deepEqual(Object.keys(VALID_PARAMS).sort(), Object.keys(METHODS).sort())
  })

  describe('valid requests decode to the frame', () => {
    for (const [method, params] of Object.entries(VALID_PARAMS)) {
      test(method, () => {
        const frame = decodeRequest(encodeRequest(3, method, params))
        assert.deepEqual(frame, { v: PROTOCOL_VERSION, id: 3, method, params })
      })
    }

    test('missing params are an empty object', () => {
      assert.deepEqual(decodeRequest(request({ id: 1, method: 'app.list' })).params, {})
      assert.deepEqual(decodeRequest(request({ id: 1, method: 'app.list', params: null })).params, {})
    })

    test('optional fields and nullable targets', () => {
      const params = { target: null, lines: 100, stream: 'err' }
      assert.deepEqual(decodeRequest(encodeRequest(2, 'logs.tail', params)).params, params)
    })

    test('app.start with a full config and the caller\'s shell env', () => {
      const params = { apps: [app({ exec_mode: 'cluster', instances: 4, env: { PORT: '3000' } })], shellEnv: { PATH: '/usr/bin' } }
      assert.deepEqual(decodeRequest(encodeRequest(2, 'app.start', params)).params, params)
    })
  })
})

describe('encode → decodeReply round trips', () => {
  test('encodeRequest writes the wire shape', () => {
    assert.deepEqual(JSON.parse(encodeRequest(7, 'app.list')), { v: PROTOCOL_VERSION, id: 7, method: 'app.list', params: {} })
  })

  const results = [{ pong: true }, [1, 2], 'text', 0, null]
  for (const result of results) {
    test(`encodeResult ${JSON.stringify(result)}`, () => {
      assert.deepEqual(decodeReply(encodeResult(7, result)), { v: PROTOCOL_VERSION, id: 7, ok: true, result })
    })
  }

  test('encodeResult of undefined sends null', () => {
    assert.deepEqual(decodeReply(encodeResult(7, undefined)), { v: PROTOCOL_VERSION, id: 7, ok: true, result: null })
  })

  test('encodeError carries code, message and details', () => {
    const error = new SupError('SUP_ERR_APP_NOT_FOUND', { target: 'api' })
    const frame = decodeReply(encodeError(7, error))
    assert.deepEqual(frame, { v: PROTOCOL_VERSION, id: 7, ok: false, error: { code: 'SUP_ERR_APP_NOT_FOUND', message: error.message, details: { target: 'api' } } })
    assert.ok('error' in frame)
    const back = SupError.fromJSON(frame.error)
    assert.equal(back.code, error.code)
    assert.equal(back.message, error.message)
    assert.deepEqual(back.details, error.details)
  })

  test('encodeError without a request id', () => {
    const frame = decodeReply(encodeError(null, new SupError('SUP_ERR_IPC_BAD_MESSAGE', { reason: 'not JSON' })))
    assert.ok('ok' in frame)
    assert.equal(frame.ok, false)
    assert.equal(/** @type {any} */ (frame).id, null)
  })

  test('a decodeRequest failure round-trips as an error reply', () => {
    /** @type {any} */
    let err
    assert.throws(() => decodeRequest(request({ id: 5, method: 'app.nope' })), (e) => { err = e; return true })
    const frame = decodeReply(encodeError(err.requestId, err))
    assert.deepEqual(frame, { v: PROTOCOL_VERSION, id: 5, ok: false, error: { code: 'SUP_ERR_IPC_UNKNOWN_METHOD', message: 'unknown method "app.nope"', details: { method: 'app.nope' } } })
  })

  test('encodeEvent', () => {
    const data = { app: 'api', status: 'online' }
    assert.deepEqual(decodeReply(encodeEvent('app.state', data)), { v: PROTOCOL_VERSION, topic: 'app.state', data })
  })

  const bad = [['not JSON', 'nope'], ['null', 'null'], ['neither ok nor topic', '{"v":1,"id":1}'], ['ok not a boolean', '{"v":1,"id":1,"ok":"yes"}']]
  for (const [name, text] of bad) {
    test(`decodeReply rejects ${name}`, () => { catchSupError(() => decodeReply(text), 'SUP_ERR_IPC_BAD_MESSAGE') })
  }
})

describe('METHODS and daemon HANDLERS are kept in step', () => {
  const methods = Object.keys(METHODS)
  const handlers = Object.keys(HANDLERS)

  for (const method of methods) {
    test(`method ${method} has a handler`, () => assert.equal(typeof HANDLERS[method], 'function'))
  }
  for (const handler of handlers) {
    test(`handler ${handler} has a params schema`, () => assert.ok(Object.hasOwn(METHODS, handler)))
  }
})
