// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readDaemonOptions } from '../../../daemon/options.js'

describe('readDaemonOptions', () => {
  /** @type {Array<[string, string[], Record<string, string>, import('../../../daemon/options.js').DaemonOptions]>} */
  const rows = [
    ['defaults', [], {}, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false }],
    ['interval from the environment', [], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 500, metrics: null, shutdownWithMessage: false }],
    ['the flag wins over the environment', ['--sample-interval', '250'], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 250, metrics: null, shutdownWithMessage: false }],
    ['0 turns sampling off', ['--sample-interval=0'], {}, { sampleInterval: 0, metrics: null, shutdownWithMessage: false }],
    ['a metrics port opens the endpoint on 127.0.0.1', [], { SUP_METRICS_PORT: '9209' }, { sampleInterval: 1000, metrics: { port: 9209, host: '127.0.0.1' }, shutdownWithMessage: false }],
    ['a host can be given', ['--metrics-port', '9300', '--metrics-host', '0.0.0.0'], {}, { sampleInterval: 1000, metrics: { port: 9300, host: '0.0.0.0' }, shutdownWithMessage: false }],
    ['an empty port is no port', [], { SUP_METRICS_PORT: '' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false }],
    ['PM2_KILL_USE_MESSAGE: workers are stopped with a message', [], { PM2_KILL_USE_MESSAGE: 'true' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: true }],
    ['SUP_SHUTDOWN_WITH_MESSAGE does the same', [], { SUP_SHUTDOWN_WITH_MESSAGE: '1' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: true }],
    ['"false" is off (PM2 takes it as on)', [], { PM2_KILL_USE_MESSAGE: 'false' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false }],
    ['SUP_SHUTDOWN_WITH_MESSAGE wins over PM2_KILL_USE_MESSAGE', [], { SUP_SHUTDOWN_WITH_MESSAGE: '0', PM2_KILL_USE_MESSAGE: 'true' }, { sampleInterval: 1000, metrics: null, shutdownWithMessage: false }]
  ]
  for (const [name, argv, env, expected] of rows) {
    test(name, () => assert.deepEqual(readDaemonOptions(argv, env), expected))
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
