// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { describe, test } from 'node:test'
import pino from 'pino'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { AppTriggers } from '../../../../daemon/triggers/app-triggers.js'

/** @typedef {import('../../../../ipc/app-config.js').AppConfig} AppConfig */
/** @param {Partial<AppConfig>} overrides @returns {AppConfig} */
const appConfig = (overrides) => ({ ...structuredClone({ ...APP_DEFAULTS }), name: 'api', script: '/app/api.js', cwd: '/app', ...overrides })

function harness (/** @type {Partial<AppConfig>} */ overrides) {
  /** @type {string[]} */
  const reasons = []
  /** @type {Array<{ fn: () => void, ms: number }>} */
  const timers = []
  /** @type {any[]} */
  const watched = []
  const watcher = Object.assign(new EventEmitter(), { close: async () => {} })
  const triggers = new AppTriggers({
    config: appConfig(overrides),
    logFiles: ['/app/logs/api-out.log'],
    restart: (reason) => reasons.push(reason),
    logger: pino({ level: 'silent' }),
    now: () => Date.parse('2026-01-01T00:00:00Z'),
    timers: { setTimeout: (fn, ms) => { timers.push({ fn, ms }); return fn }, clearTimeout: () => {} },
    watch: (paths, options) => { watched.push({ paths, options }); return watcher }
  })
  return { triggers, reasons, timers, watched, watcher }
}

describe('AppTriggers', () => {
  test('nothing set: no timer, no watcher', async () => {
    const { triggers, timers, watched } = harness({})
    assert.deepEqual(triggers.status(), { cron_restart: null, watch: null })
    assert.equal(timers.length + watched.length, 0)
    await triggers.stop()
  })

  test('cron_restart says when it fires next, and restarts with the expression as the reason', async () => {
    const { triggers, reasons, timers } = harness({ cron_restart: '0 3 * * *' })
    assert.deepEqual(triggers.status().cron_restart, { expression: '0 3 * * *', next: Date.parse('2026-01-01T03:00:00Z') })
    assert.equal(timers[0].ms, 3 * 3600_000)
    assert.deepEqual(reasons, [])
    // The clock stays at midnight, so the fired timer waits again (tested in cron-restart.test.js);
    // driving the schedule itself shows the reason given.
    triggers.cron?.onTick()
    assert.deepEqual(reasons, ['cron_restart "0 3 * * *"'])
    await triggers.stop()
    assert.equal(triggers.status().cron_restart?.next, null)
  })

  test('watch: the cwd by default, never the app\'s own logs, restart after watch_delay', () => {
    const { triggers, reasons, timers, watched, watcher } = harness({ watch: true, watch_delay: 250, ignore_watch: ['*.tmp'] })
    assert.deepEqual(watched[0].paths, ['/app'])
    const ignored = watched[0].options.ignored
    assert.deepEqual(['/app/a.js', '/app/x.tmp', '/app/logs/api-out.log', '/app/node_modules'].map(ignored), [false, true, true, true])
    watcher.emit('all', 'change', '/app/a.js')
    assert.equal(timers[0].ms, 250)
    timers[0].fn()
    assert.deepEqual(reasons, ['watch: /app/a.js changed'])
    assert.deepEqual(triggers.status().watch, { paths: ['/app'], ignore: ['*.tmp'], delay: 250, ready: false, error: null })
    watcher.emit('ready')
    assert.equal(triggers.status().watch?.ready, true)
  })

  test('watch_paths replace the cwd', () => {
    const { watched } = harness({ watch: true, watch_paths: ['/app/src', '/etc/app'] })
    assert.deepEqual(watched[0].paths, ['/app/src', '/etc/app'])
  })
})
