// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { PROBE_TIMING_DEFAULTS, parseDependsOn, parseProbe } from '../../../../client/config/probes.js'
import { APP_CONFIG_SCHEMA } from '../../../../ipc/app-config.js'
import { validate } from '../../../../ipc/schema.js'
import { PROBE_DEFAULTS } from '../../../../daemon/probes/probe.js'

const base = { host: '127.0.0.1', port: null, path: '', status: null, command: [], ...PROBE_TIMING_DEFAULTS }

describe('parseProbe', () => {
  /** @type {Array<[unknown, Record<string, unknown>]>} */
  const good = [
    [{ http: '/healthz' }, { type: 'http', path: '/healthz' }],
    [{ http: { path: '/ready', port: '8080', status: 204, host: '::1' } }, { type: 'http', path: '/ready', port: 8080, status: 204, host: '::1' }],
    [{ http: {} }, { type: 'http', path: '/' }],
    [{ tcp: 3000 }, { type: 'tcp', port: 3000 }],
    [{ tcp: true }, { type: 'tcp' }],
    [{ tcp: { port: 5432, host: 'db.local' } }, { type: 'tcp', port: 5432, host: 'db.local' }],
    [{ exec: './check.sh --quick "a b"' }, { type: 'exec', command: ['./check.sh', '--quick', 'a b'] }],
    [{ exec: ['pg_isready', '-p', 5432] }, { type: 'exec', command: ['pg_isready', '-p', '5432'] }],
    [{ http: '/h', initial_delay: '10s', period: 500, timeout: '250ms', failure_threshold: '1', success_threshold: 2 },
      { type: 'http', path: '/h', initial_delay: 10_000, period: 500, timeout: 250, failure_threshold: 1, success_threshold: 2 }]
  ]
  for (const [raw, expected] of good) {
    test(`${JSON.stringify(raw)} reads`, () => {
      const probe = parseProbe(raw, 'readiness')
      assert.deepEqual(probe, { ...base, ...expected })
      const config = { readiness: probe }
      assert.equal(validate(/** @type {any} */ (APP_CONFIG_SCHEMA).properties.readiness, config.readiness, 'readiness'), null)
    })
  }

  test('absent, null or false: no probe', () => {
    for (const raw of [undefined, null, false]) assert.equal(parseProbe(raw, 'liveness'), null)
  })

  test('the defaults are the runner\'s (Kubernetes\')', () => {
    assert.deepEqual(PROBE_TIMING_DEFAULTS, PROBE_DEFAULTS)
  })

  /** @type {Array<[unknown, 'readiness' | 'liveness', RegExp]>} */
  const bad = [
    ['/healthz', 'readiness', /use an object/],
    [{}, 'readiness', /say what to check/],
    [{ http: '/a', tcp: 1 }, 'readiness', /give one of http, tcp, not several/],
    [{ http: 'healthz' }, 'liveness', /must start with "\/"/],
    [{ http: { path: '/', verb: 'POST' } }, 'liveness', /unknown key "http.verb"/],
    [{ http: { status: 700 } }, 'liveness', /status must be an HTTP status/],
    [{ tcp: 70000 }, 'readiness', /port from 1 to 65535/],
    [{ tcp: { host: 'a b' } }, 'readiness', /host must be/],
    [{ exec: [] }, 'readiness', /exec takes a command/],
    [{ exec: '   ' }, 'readiness', /exec takes a command/],
    [{ http: '/', period: 'soon' }, 'readiness', /period must be milliseconds/],
    [{ http: '/', period: 0 }, 'readiness', /period must be at least 1 ms/],
    [{ http: '/', timeout: 0 }, 'readiness', /timeout must be at least 1 ms/],
    [{ http: '/', failure_threshold: 0 }, 'readiness', /failure_threshold must be a whole number from 1 to 1000/],
    [{ http: '/', success_threshold: 2 }, 'liveness', /success_threshold must be 1 for a liveness probe/],
    [{ http: '/', periodSeconds: 5 }, 'readiness', /unknown key "periodSeconds"/]
  ]
  for (const [raw, kind, message] of bad) {
    test(`${kind} ${JSON.stringify(raw)} is refused with a coded error`, () => {
      assert.throws(() => parseProbe(raw, kind), (/** @type {any} */ err) => {
        assert.equal(err.code, 'SUP_ERR_CONFIG_INVALID_PROBE')
        assert.match(err.message, message)
        assert.match(err.message, new RegExp(`^invalid ${kind} probe`))
        return true
      })
    })
  }
})

describe('parseDependsOn', () => {
  test('a name, a comma list or a list; duplicates dropped', () => {
    assert.deepEqual(parseDependsOn(undefined, 'api'), [])
    assert.deepEqual(parseDependsOn('db', 'api'), ['db'])
    assert.deepEqual(parseDependsOn('db, cache', 'api'), ['db', 'cache'])
    assert.deepEqual(parseDependsOn(['db', 'db', 'cache'], 'api'), ['db', 'cache'])
  })
  /** @type {Array<[unknown, RegExp]>} */
  const bad = [[{ db: true }, /app name or a list/], [['ok', '../x'], /is not an app name/], [['api'], /cannot depend on itself/]]
  for (const [raw, message] of bad) {
    test(`${JSON.stringify(raw)} is refused`, () => {
      assert.throws(() => parseDependsOn(raw, 'api'), (/** @type {any} */ err) => err.code === 'SUP_ERR_CONFIG_INVALID_OPTION' && message.test(err.message))
    })
  }
})
