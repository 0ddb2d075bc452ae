// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readDaemonOptions } from '../../../daemon/options.js'

describe('readDaemonOptions', () => {
  /** @type {Array<[string, string[], Record<string, string>, import('../../../daemon/options.js').DaemonOptions]>} */
  const rows = [
    ['defaults', [], {}, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['interval from the environment', [], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 500, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['the flag wins over the environment', ['--sample-interval', '250'], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 250, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['0 turns sampling off', ['--sample-interval=0'], {}, { sampleInterval: 0, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['a metrics port opens the endpoint on 127.0.0.1', [], { SUP_METRICS_PORT: '9209' }, { sampleInterval: 1000, metrics: { port: 9209, host: '127.0.0.1' }, shutdownWithMessage: false, pidFile: null }],
    ['a host can be given', ['--metrics-port', '9300', '--metrics-host', '0.0.0.0'], {}, { sampleInterval: 1000, metrics: { port: 9300, host: '0.0.0.0' }, shutdownWithMessage: false, pidFile: null }],
    ['an empty port is no port', [], { SUP_METRICS_PORT: '' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['PM2_KILL_USE_MESSAGE: workers are stopped with a message', [], { PM2_KILL_USE_MESSAGE: 'true' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: true, pidFile: null }],
    ['SUP_SHUTDOWN_WITH_MESSAGE does the same', [], { SUP_SHUTDOWN_WITH_MESSAGE: '1' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: true, pidFile: null }],
    ['"false" is off (PM2 takes it as on)', [], { PM2_KILL_USE_MESSAGE: 'false' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['SUP_SHUTDOWN_WITH_MESSAGE wins over PM2_KILL_USE_MESSAGE', [], { SUP_SHUTDOWN_WITH_MESSAGE: '0', PM2_KILL_USE_MESSAGE: 'true' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: null }],
    ['PM2_PID_FILE_PATH: a copy of the pid there', [], { PM2_PID_FILE_PATH: '/tmp/x.pid' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: '/tmp/x.pid' }],
    ['SUP_PID_FILE wins over PM2\'s name', [], { PM2_PID_FILE_PATH: '/tmp/x.pid', SUP_PID_FILE: '/run/y.pid' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: '/run/y.pid' }],
    ['a relative pid file is in SUP_HOME', [], { SUP_PID_FILE: 'copy.pid' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false, pidFile: '/home/h/.sup/copy.pid' }]
  ]
  for (const [name, argv, env, expected] of rows) {
    test(name, () => assert.deepEqual(readDaemonOptions(argv, env, '/home/h/.sup'), expected))
  }

  /** @type {Array<[string, string[], Record<string, string>, string]>} */
  const bad = [
    ['an interval below 100 ms', ['--sample-interval', '50'], {}, 'SUP_ERR_METRICS_INTERVAL_INVALID'],
    ['an interval that is not a number', [], { SUP_SAMPLE_INTERVAL: '1s' }, 'SUP_ERR_METRICS_INTERVAL_INVALID'],
    ['a port out of range', [], { SUP_METRICS_PORT: '70000' }, 'SUP_ERR_METRICS_PORT_INVALID'],
    ['a port that is not a number', ['--metrics-port', 'http'], {}, 'SUP_ERR_METRICS_PORT_INVALID']
  ]
  for (const [name, argv, env, code] of bad) {
    test(`refuses ${name}`, () => assert.throws(() => readDaemonOptions(argv, env), { code }))
  }
})
