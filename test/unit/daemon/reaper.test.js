// @ts-check
// What sup-runtime does about orphans' zombies, from where it runs (daemon/reaper.js).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { reaperPlan } from '../../../daemon/reaper.js'

const COMMAND = ['/usr/bin/node', '/app/node_modules/.bin/sup-runtime', 'app.js']

/**
 * @param {string[]} present executables on this pretend machine
 * @param {Partial<import('../../../daemon/reaper.js').ReaperFacts>} facts
 */
const plan = (present, facts = {}) => reaperPlan({ pid: 1, env: { PATH: '/usr/local/bin:/usr/bin' }, canExecve: true, command: COMMAND, isExecutable: (file) => present.includes(file), ...facts })

test('not PID 1: nothing to do, even with an init on the machine', () => {
  assert.deepEqual(plan(['/usr/bin/tini'], { pid: 42 }), { kind: 'none' })
})

test('PID 1 with process.execve: become tini (or dumb-init, forwarding to its one child) in place', () => {
  assert.deepEqual(plan(['/usr/bin/tini']), { kind: 'execve', file: '/usr/bin/tini', args: ['/usr/bin/tini', '--', ...COMMAND] })
  assert.deepEqual(plan(['/usr/bin/dumb-init']), { kind: 'execve', file: '/usr/bin/dumb-init', args: ['/usr/bin/dumb-init', '--single-child', '--', ...COMMAND] })
  assert.equal(plan(['/usr/bin/dumb-init', '/sbin/tini']).kind === 'execve' && plan(['/usr/bin/dumb-init', '/sbin/tini']).file, '/sbin/tini', 'tini first')
  assert.equal(plan(['/usr/local/bin/tini', '/usr/bin/tini']).kind === 'execve' && plan(['/usr/local/bin/tini', '/usr/bin/tini']).file, '/usr/local/bin/tini', 'PATH order')
})

test('PID 1 without process.execve (Node 20): tini -s as our child, the subreaper of everything below', () => {
  assert.deepEqual(plan(['/usr/bin/tini'], { canExecve: false }), { kind: 'spawn', file: '/usr/bin/tini', args: ['-s', '--', ...COMMAND] })
  const onlyDumb = plan(['/usr/bin/dumb-init'], { canExecve: false })
  assert.equal(onlyDumb.kind, 'warn')
  assert.match(onlyDumb.kind === 'warn' ? onlyDumb.why : '', /use tini/)
})

test('no init on the machine, or SUP_RUNTIME_INIT=none: run as PID 1 with the reason for the warning', () => {
  assert.deepEqual(plan([]), { kind: 'warn', why: 'no tini or dumb-init on this machine' })
  assert.deepEqual(plan(['/usr/bin/tini'], { env: { SUP_RUNTIME_INIT: 'none' } }), { kind: 'warn', why: 'SUP_RUNTIME_INIT=none' })
})

test('SUP_RUNTIME_INIT names the init: an absolute path to an executable tini or dumb-init, nothing else', () => {
  assert.deepEqual(plan(['/opt/tini'], { env: { SUP_RUNTIME_INIT: '/opt/tini' } }), { kind: 'execve', file: '/opt/tini', args: ['/opt/tini', '--', ...COMMAND] })
  for (const given of ['tini', '/bin/sh', '/opt/missing/tini']) {
    const result = plan(['/bin/sh', '/usr/bin/tini'], { env: { SUP_RUNTIME_INIT: given } })
    assert.equal(result.kind, 'warn', given)
    assert.match(result.kind === 'warn' ? result.why : '', /is not an executable tini or dumb-init/)
  }
})

test('relative PATH entries are not searched (a writable cwd must not choose PID 1\'s program)', () => {
  assert.deepEqual(plan(['bin/tini'], { env: { PATH: 'bin:/usr/bin' } }), { kind: 'warn', why: 'no tini or dumb-init on this machine' })
})
