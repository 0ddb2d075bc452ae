// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { describeState, failedWhenStopped, runtimeVerdict } from '../../../daemon/foreground-verdict.js'

/**
 * @param {number} id
 * @param {string} status
 * @param {{ code?: number | null, signal?: string | null } | null} [exit]
 * @returns {any}
 */
const row = (id, status, exit = null) => ({
  id,
  name: `app${id}`,
  instance: 0,
  pid: status === 'online' ? 100 + id : null,
  status,
  unstable_restarts: 17,
  retry_at: status === 'waiting' ? 1250 : null,
  last_exit: exit && { code: exit.code ?? null, signal: exit.signal ?? null, at: 0 }
})

describe('failedWhenStopped', () => {
  /** @type {Array<[string, string | undefined, any, number[], boolean]>} */
  const rows = [
    ['stopped on purpose (it was stopping), whatever the exit', 'stopping', row(1, 'stopped', { signal: 'SIGKILL' }), [], false],
    ['exited by itself with code 0', 'online', row(1, 'stopped', { code: 0 }), [], false],
    ['exited by itself with a stop_exit_code', 'online', row(1, 'stopped', { code: 3 }), [3], false],
    ['exited by itself with another code', 'online', row(1, 'stopped', { code: 3 }), [], true],
    ['killed by a signal from outside', 'online', row(1, 'stopped', { signal: 'SIGSEGV' }), [], true],
    ['never ran', undefined, row(1, 'stopped'), [], false]
  ]
  for (const [name, previous, r, codes, expected] of rows) {
    test(`${name} -> ${expected}`, () => assert.equal(failedWhenStopped(previous, r, codes), expected))
  }
})

describe('runtimeVerdict', () => {
  /** @type {Array<[string, any[], number[], null | { code: number, error: string | null, reason: RegExp }]>} */
  const rows = [
    ['everything online: keep running', [row(1, 'online'), row(2, 'online')], [], null],
    ['one waiting to restart: keep running', [row(1, 'online'), row(2, 'waiting')], [], null],
    ['one starting, one stopped: keep running', [row(1, 'starting'), row(2, 'stopped')], [2], null],
    ['an errored worker ends it with 1', [row(1, 'online'), row(2, 'errored')], [], { code: 1, error: 'SUP_ERR_RUNTIME_APP_ERRORED', reason: /^app2\[0\] errored \(a crash loop\)/ }],
    ['every worker stopped cleanly: 0', [row(1, 'stopped', { code: 0 }), row(2, 'stopped')], [], { code: 0, error: null, reason: /^every app has stopped$/ }],
    ['every worker stopped, one failed: 1', [row(1, 'stopped'), row(2, 'stopped')], [2], { code: 1, error: 'SUP_ERR_RUNTIME_APPS_FAILED', reason: /and app2\[0\] failed/ }],
    ['no worker left (all deleted): 0', [], [], { code: 0, error: null, reason: /^no apps left$/ }]
  ]
  for (const [name, workers, failed, expected] of rows) {
    test(name, () => {
      const verdict = runtimeVerdict(workers, new Set(failed))
      if (expected === null) return assert.equal(verdict, null)
      assert.ok(verdict)
      assert.equal(verdict.code, expected.code)
      assert.equal(verdict.error?.code ?? null, expected.error)
      assert.match(verdict.reason, expected.reason)
    })
  }
})

describe('describeState', () => {
  /** @type {Array<[any, string | null]>} */
  const rows = [
    [row(1, 'online'), 'app1[0] online (pid 101)'],
    [row(1, 'waiting', { code: 3 }), 'app1[0] exited with code 3; restarting in 250 ms'],
    [row(1, 'errored', { signal: 'SIGSEGV' }), 'app1[0] errored: 17 exits in a row within min_uptime, last with signal SIGSEGV'],
    [row(1, 'stopped', { code: 0 }), 'app1[0] stopped (code 0)'],
    [row(1, 'stopped'), 'app1[0] stopped'],
    [row(1, 'deleted'), 'app1[0] deleted'],
    [row(1, 'starting'), null],
    [row(1, 'stopping'), null]
  ]
  for (const [r, expected] of rows) {
    test(`${r.status} -> ${expected}`, () => assert.equal(describeState(r, 1000), expected))
  }
})
