// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import { describe, test } from 'node:test'
import pino from 'pino'
import { FileWatch } from '../../../../daemon/triggers/watch-restart.js'

const logger = pino({ level: 'silent' })

/** A watcher the test drives, and timers it fires by hand. */
function setup (delay = 500) {
  const watcher = Object.assign(new EventEmitter(), { closed: false, close: async () => { watcher.closed = true } })
  /** @type {any[]} */
  const calls = []
  /** @type {Array<{ fn: () => void, ms: number, cleared: boolean }>} */
  const timers = []
  const fake = {
    setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => { const t = { fn, ms, cleared: false }; timers.push(t); return t },
    clearTimeout: (/** @type {any} */ t) => { if (t) t.cleared = true }
  }
  /** @type {string[]} */
  const changes = []
  const files = new FileWatch({
    paths: ['/app'],
    ignored: () => false,
    delay,
    onChange: (path) => changes.push(path),
    logger,
    timers: fake,
    watch: (paths, options) => { calls.push({ paths, options }); return watcher }
  })
  const live = () => timers.filter((t) => !t.cleared)
  /** Fire the one pending timer. */
  const fire = () => {
    const [timer] = live()
    timer.cleared = true
    timer.fn()
  }
  return { files, watcher, calls, timers, live, fire, changes }
}

describe('FileWatch', () => {
  test('watches the paths with the ignore function, without reporting what exists at start', () => {
    const { calls } = setup()
    assert.deepEqual(calls[0].paths, ['/app'])
    assert.equal(calls[0].options.ignoreInitial, true)
    assert.equal(typeof calls[0].options.ignored, 'function')
  })

  test('a burst of changes is one restart, watch_delay after the last', () => {
    const { watcher, live, fire, changes } = setup(500)
    watcher.emit('all', 'change', '/app/a.js')
    watcher.emit('all', 'add', '/app/b.js')
    watcher.emit('all', 'unlink', '/app/c.js')
    assert.equal(live().length, 1, 'one pending timer')
    assert.equal(live()[0].ms, 500)
    assert.deepEqual(changes, [])
    fire()
    assert.deepEqual(changes, ['/app/c.js'])
    watcher.emit('all', 'change', '/app/a.js')
    fire()
    assert.deepEqual(changes, ['/app/c.js', '/app/a.js'])
  })

  test('an error is kept for describe; close stops everything', async () => {
    const { files, watcher, live, changes } = setup()
    watcher.emit('error', Object.assign(new Error('watch limit'), { code: 'ENOSPC', path: '/app/big' }))
    assert.equal(files.error?.code, 'SUP_ERR_WATCH_FAILED')
    assert.match(String(files.error?.message), /cannot watch \/app\/big for changes: the system's limit of watched folders is reached \(ENOSPC\)/)
    watcher.emit('all', 'change', '/app/a.js')
    const pending = live()[0]
    await files.close()
    assert.equal(watcher.closed, true)
    assert.equal(pending.cleared, true)
    pending.fn()
    watcher.emit('all', 'change', '/app/a.js')
    assert.deepEqual(changes, [])
    assert.equal(live().length, 0)
  })
})
