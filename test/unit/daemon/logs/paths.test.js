// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { logPathFor, logTargetsFor } from '../../../../daemon/logs/paths.js'

/** @typedef {import('../../../../ipc/app-config.js').AppConfig} AppConfig */

const LOGS = '/home/u/.sup/logs'

/** @param {Partial<AppConfig>} [overrides] @returns {AppConfig} */
const appConfig = (overrides = {}) => ({ ...structuredClone({ ...APP_DEFAULTS }), name: 'api', script: '/srv/api.js', cwd: '/srv', ...overrides })

describe('logPathFor', () => {
  /** @type {Array<[string, Partial<AppConfig>, 'out' | 'err' | 'combined', number, string]>} */
  const cases = [
    ['fork, one instance', {}, 'out', 0, `${LOGS}/api-out.log`],
    ['fork, one instance, stderr', {}, 'err', 0, `${LOGS}/api-err.log`],
    ['cluster', { exec_mode: 'cluster', instances: 4 }, 'out', 2, `${LOGS}/api-out-2.log`],
    ['cluster of one still gets a suffix', { exec_mode: 'cluster', instances: 1 }, 'err', 0, `${LOGS}/api-err-0.log`],
    ['fork with several instances', { instances: 3 }, 'out', 1, `${LOGS}/api-out-1.log`],
    ['cluster with merge_logs', { exec_mode: 'cluster', instances: 4, merge_logs: true }, 'out', 3, `${LOGS}/api-out.log`],
    ['custom out_file, one instance', { out_file: '/var/log/api/app.log' }, 'out', 0, '/var/log/api/app.log'],
    ['custom out_file is not used for stderr', { out_file: '/var/log/api/app.log' }, 'err', 0, `${LOGS}/api-err.log`],
    ['custom error_file', { error_file: '/var/log/api/errors.txt' }, 'err', 0, '/var/log/api/errors.txt'],
    ['custom out_file, per instance: suffix before the extension', { out_file: '/var/log/api/app.log', exec_mode: 'cluster', instances: 2 }, 'out', 1, '/var/log/api/app-1.log'],
    ['custom file with two dots', { out_file: '/var/log/api.v2.log', instances: 2 }, 'out', 0, '/var/log/api.v2-0.log'],
    ['custom file without extension', { error_file: '/var/log/api-errors', exec_mode: 'cluster', instances: 2 }, 'err', 1, '/var/log/api-errors-1'],
    ['custom file, merge_logs', { out_file: '/var/log/app.log', exec_mode: 'cluster', instances: 2, merge_logs: true }, 'out', 1, '/var/log/app.log'],
    ['/dev/null', { out_file: '/dev/null' }, 'out', 0, '/dev/null'],
    ['/dev/null in cluster mode gets no suffix', { out_file: '/dev/null', exec_mode: 'cluster', instances: 2 }, 'out', 1, '/dev/null'],
    ['NULL', { error_file: 'NULL', exec_mode: 'cluster', instances: 2 }, 'err', 1, '/dev/null'],
    ['no log_file: no combined file', {}, 'combined', 0, '/dev/null'],
    ['log_file false: no combined file', { log_file: false }, 'combined', 0, '/dev/null'],
    ['log_file true: <name>.log in the logs folder', { log_file: true }, 'combined', 0, `${LOGS}/api.log`],
    ['log_file true, cluster: per instance', { log_file: true, exec_mode: 'cluster', instances: 2 }, 'combined', 1, `${LOGS}/api-1.log`],
    ['log_file true, merge_logs', { log_file: true, exec_mode: 'cluster', instances: 2, merge_logs: true }, 'combined', 1, `${LOGS}/api.log`],
    ['log_file path', { log_file: '/var/log/all.log' }, 'combined', 0, '/var/log/all.log'],
    ['log_file /dev/null', { log_file: '/dev/null' }, 'combined', 0, '/dev/null']
  ]
  for (const [name, overrides, target, instance, expected] of cases) {
    test(`${name} -> ${expected}`, () => assert.equal(logPathFor(appConfig(overrides), LOGS, target, instance), expected))
  }
})

describe('logTargetsFor', () => {
  /** @type {Array<[string, Partial<AppConfig>, 'out' | 'err', number, string[]]>} */
  const cases = [
    ['stdout alone', {}, 'out', 0, [`${LOGS}/api-out.log`]],
    ['stderr and the combined file', { log_file: true }, 'err', 0, [`${LOGS}/api-err.log`, `${LOGS}/api.log`]],
    ['a disabled stream still reaches the combined file', { out_file: 'NULL', log_file: '/var/log/all.log' }, 'out', 0, ['/var/log/all.log']],
    ['everything disabled', { error_file: '/dev/null' }, 'err', 0, []],
    ['the same file named twice is written once', { out_file: '/var/log/all.log', log_file: '/var/log/all.log' }, 'out', 0, ['/var/log/all.log']],
    ['per instance', { log_file: true, exec_mode: 'cluster', instances: 2 }, 'out', 1, [`${LOGS}/api-out-1.log`, `${LOGS}/api-1.log`]]
  ]
  for (const [name, overrides, stream, instance, expected] of cases) {
    test(name, () => assert.deepEqual(logTargetsFor(appConfig(overrides), LOGS, stream, instance), expected))
  }
})
