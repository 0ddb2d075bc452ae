// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { LOG_DEFAULTS, readLogDefaults, rotationFor } from '../../../../daemon/logs/defaults.js'

describe('readLogDefaults', () => {
  /** @type {Array<[Record<string, string>, object, number]>} [env, expected over LOG_DEFAULTS, warnings] */
  const cases = [
    [{}, {}, 0],
    [{ SUP_LOG_MAX_SIZE: '50M', SUP_LOG_RETAIN: '10', SUP_LOG_COMPRESS: 'true' }, { maxSize: 50 * 1024 ** 2, retain: 10, compress: true }, 0],
    [{ SUP_LOG_MAX_SIZE: '0', SUP_LOG_RETAIN: '0', SUP_LOG_COMPRESS: '0' }, { maxSize: 0, retain: 0, compress: false }, 0],
    [{ SUP_LOG_MAX_SIZE: 'lots' }, {}, 1],
    [{ SUP_LOG_RETAIN: '-1', SUP_LOG_COMPRESS: 'yes' }, {}, 2]
  ]
  for (const [env, expected, warnings] of cases) {
    test(JSON.stringify(env), () => {
      /** @type {string[]} */
      const warned = []
      assert.deepEqual(readLogDefaults(env, (m) => warned.push(m)), { ...LOG_DEFAULTS, ...expected })
      assert.equal(warned.length, warnings, warned.join('; '))
    })
  }
  test('rotation is on by default', () => assert.ok(LOG_DEFAULTS.maxSize > 0 && LOG_DEFAULTS.retain > 0))
})

describe('rotationFor', () => {
  const config = { ...structuredClone({ ...APP_DEFAULTS }), name: 'a', script: '/a.js', cwd: '/' }
  const defaults = { maxSize: 100, retain: 3, compress: true }
  test('the daemon\'s settings fill what the app leaves null', () => assert.deepEqual(rotationFor(config, defaults), defaults))
  test('the app\'s own win, 0 and false included', () => {
    assert.deepEqual(rotationFor({ ...config, log_max_size: 0, log_retain: 0, log_compress: false }, defaults), { maxSize: 0, retain: 0, compress: false })
  })
})
