// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { requestOf } from '../../../../client/commands/settings.js'

describe('requestOf: what sup set / unset / multiset / get / conf ask of the daemon', () => {
  /** @type {Array<[string, string, string | undefined, string | undefined, unknown]>} */
  const rows = [
    ['set app.key value', 'set', 'echo.config_var', 'false', { method: 'settings.set', entries: [{ app: 'echo', key: 'config_var', value: 'false' }] }],
    ['PM2\'s colon form', 'set', 'echo:probes', 'true', { method: 'settings.set', entries: [{ app: 'echo', key: 'probes', value: 'true' }] }],
    ['a key with dots keeps them', 'set', 'api.a.b', '1', { method: 'settings.set', entries: [{ app: 'api', key: 'a.b', value: '1' }] }],
    ['an empty value is a value', 'set', 'api.X', '', { method: 'settings.set', entries: [{ app: 'api', key: 'X', value: '' }] }],
    ['multiset pairs, quotes hold spaces', 'multiset', 'echo.conf false api.MSG "two words"', undefined, { method: 'settings.set', entries: [{ app: 'echo', key: 'conf', value: 'false' }, { app: 'api', key: 'MSG', value: 'two words' }] }],
    ['unset an app: every key', 'unset', 'echo', undefined, { method: 'settings.unset', app: 'echo', key: null }],
    ['unset one key', 'unset', 'echo.conf', undefined, { method: 'settings.unset', app: 'echo', key: 'conf' }],
    ['get all', 'get', undefined, undefined, { method: 'settings.get', app: null, key: null }],
    ['get one', 'get', 'echo.conf', undefined, { method: 'settings.get', app: 'echo', key: 'conf' }],
    ['conf with a value sets', 'conf', 'echo.conf', 'x', { method: 'settings.set', entries: [{ app: 'echo', key: 'conf', value: 'x' }] }],
    ['config without a value gets', 'config', 'echo', undefined, { method: 'settings.get', app: 'echo', key: null }]
  ]
  for (const [name, verb, first, second, expected] of rows) {
    test(name, () => assert.deepEqual(requestOf(verb, first, second), expected))
  }

  /** @type {Array<[string, string, string | undefined, string | undefined, string, RegExp?]>} */
  const bad = [
    ['set without a key', 'set', undefined, undefined, 'SUP_ERR_SETTINGS_KEY_INVALID'],
    ['set of an app alone', 'set', 'echo', 'x', 'SUP_ERR_SETTINGS_KEY_INVALID'],
    ['set without a value', 'set', 'echo.x', undefined, 'SUP_ERR_CLI_USAGE', /needs a value/],
    ['a key with "="', 'set', 'echo.A=B', '1', 'SUP_ERR_SETTINGS_KEY_INVALID'],
    ['an app name sup cannot have', 'set', 'a b.x', '1', 'SUP_ERR_SETTINGS_KEY_INVALID'],
    ['multiset with an odd count', 'multiset', 'echo.a 1 echo.b', undefined, 'SUP_ERR_CLI_USAGE'],
    ['unset without a key', 'unset', undefined, undefined, 'SUP_ERR_SETTINGS_KEY_INVALID'],
    ['pm2-logrotate: the sup setting that does it', 'set', 'pm2-logrotate:max_size', '10M', 'SUP_ERR_CLI_UNSUPPORTED', /log_max_size in the app config, or SUP_LOG_MAX_SIZE/],
    ['pm2-logrotate: a key sup has not', 'set', 'pm2-logrotate:rotateInterval', '0 0 * * *', 'SUP_ERR_CLI_UNSUPPORTED', /by size only/],
    ['PM2\'s own settings', 'multiset', 'pm2:sysmonit true', undefined, 'SUP_ERR_CLI_UNSUPPORTED', /PM2's own settings/]
  ]
  for (const [name, verb, first, second, code, message] of bad) {
    test(`refuses ${name}`, () => assert.throws(() => requestOf(verb, first, second), (err) => {
      assert.equal(/** @type {any} */ (err).code, code)
      if (message) assert.match(/** @type {Error} */ (err).message, message)
      return true
    }))
  }
})
