// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readDaemonOptions } from '../../../daemon/options.js'

describe('readDaemonOptions', () => {
  /** @type {Array<[string, string[], Record<string, string>, import('../../../daemon/options.js').DaemonOptions]>} */
  const rows = [
    ['defaults', [], {}, { sampleInterval: 1000, metrics: null }],
    ['interval from the environment', [], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 500, metrics: null }],
    ['the flag wins over the environment', ['--sample-interval', '250'], { SUP_SAMPLE_INTERVAL: '500' }, { sampleInterval: 250, metrics: null }],
    ['0 turns sampling off', ['--sample-interval=0'], {}, { sampleInterval: 0, metrics: null }],
    ['a metrics port opens the endpoint on 127.0.0.1', [], { SUP_METRICS_PORT: '9209' }, { sampleInterval: 1000, metrics: { port: 9209, host: '127.0.0.1' } }],
    ['a host can be given', ['--metrics-port', '9300', '--metrics-host', '0.0.0.0'], {}, { sampleInterval: 1000, metrics: { port: 9300, host: '0.0.0.0' } }],
    ['an empty port is no port', [], { SUP_METRICS_PORT: '' }, { sampleInterval: 1000, metrics: null }]
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
