// @ts-check
// What a worker is started with: its environment, its argv, and whether it gets the agent.
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { AGENT_PATH, buildCommand, buildWorkerEnv, usesAgent } from '../../../../daemon/worker/spawn.js'
import { appConfig } from '../../../helpers/fake-effects.js'

describe('buildWorkerEnv', () => {
  /** @type {Array<{ name: string, config: Partial<import('../../../../ipc/app-config.js').AppConfig>, shell: Record<string, string>, instance: number, expect: Record<string, string | undefined> }>} */
  const cases = [
    { name: 'the shell, then the app env over it', config: { env: { A: 'app' } }, shell: { A: 'shell', B: 'shell' }, instance: 0, expect: { A: 'app', B: 'shell', NODE_APP_INSTANCE: '0' } },
    { name: 'the instance variable last, under its configured name', config: { instance_var: 'INSTANCE_ID', env: { INSTANCE_ID: 'mine' } }, shell: {}, instance: 3, expect: { INSTANCE_ID: '3', NODE_APP_INSTANCE: undefined } },
    { name: 'increment_var adds the instance to a number', config: { increment_var: 'PORT', env: { PORT: '3000' } }, shell: {}, instance: 2, expect: { PORT: '3002' } },
    { name: 'increment_var leaves a value that is not a number alone', config: { increment_var: 'PORT', env: { PORT: 'auto' } }, shell: {}, instance: 2, expect: { PORT: 'auto' } },
    { name: 'increment_var of a variable that is not set sets nothing', config: { increment_var: 'PORT' }, shell: {}, instance: 1, expect: { PORT: undefined } }
  ]
  for (const c of cases) {
    test(c.name, () => {
      const env = buildWorkerEnv(appConfig(c.config), c.shell, c.instance)
      for (const [key, value] of Object.entries(c.expect)) assert.equal(env[key], value, key)
    })
  }

  test('`sup set` values of the app\'s name over its env, under the instance variables', () => {
    const env = buildWorkerEnv(appConfig({ name: 'api', increment_var: 'PORT', env: { A: 'app', PORT: '3000' } }), { B: 'shell' }, 1, { A: 'set', PORT: '4000', NODE_APP_INSTANCE: 'set' })
    assert.deepEqual([env.A, env.B, env.PORT, env.NODE_APP_INSTANCE], ['set', 'shell', '4001', '1'])
    assert.equal(buildWorkerEnv(appConfig({ name: 'other', env: { A: 'app' } }), {}, 0).A, 'app', 'another app has none')
  })
})

describe('buildCommand', () => {
  /** @type {Array<{ name: string, config: Partial<import('../../../../ipc/app-config.js').AppConfig>, expect: { command: string, args: string[], node: boolean } }>} */
  const cases = [
    {
      name: 'a node script: node, its args, the agent, the script, its args',
      config: { interpreter: null, interpreter_args: ['--max-old-space-size=64'], script: '/srv/a.js', args: ['--port', '1'] },
      expect: { command: process.execPath, args: ['--max-old-space-size=64', '--require', AGENT_PATH, '/srv/a.js', '--port', '1'], node: true }
    },
    {
      name: 'another interpreter: no agent, no IPC',
      config: { interpreter: 'python3', interpreter_args: ['-u'], script: '/srv/a.py', args: ['x'] },
      expect: { command: 'python3', args: ['-u', '/srv/a.py', 'x'], node: false }
    },
    {
      name: 'interpreter "none": the script is the command',
      config: { interpreter: 'none', script: '/usr/bin/env', args: ['true'] },
      expect: { command: '/usr/bin/env', args: ['true'], node: false }
    }
  ]
  for (const c of cases) {
    test(c.name, () => assert.deepEqual(buildCommand(appConfig({ exec_mode: 'fork', ...c.config })), c.expect))
  }

  test('a node script on another node (interpreter, .nvmrc): that node, with the agent', () => {
    const runtime = { kind: /** @type {const} */ ('node'), path: '/opt/node22/bin/node', version: 'v22.1.0', own: false, source: '.nvmrc' }
    assert.deepEqual(buildCommand(appConfig({ exec_mode: 'fork', interpreter: null, script: '/srv/a.js', args: [] }), runtime),
      { command: '/opt/node22/bin/node', args: ['--require', AGENT_PATH, '/srv/a.js'], node: true })
  })

  test('bun found on PATH: its path, no agent', () => {
    const runtime = { kind: /** @type {const} */ ('bun'), path: '/home/u/.bun/bin/bun', version: '1.1.30', own: false, source: 'interpreter' }
    assert.deepEqual(buildCommand(appConfig({ exec_mode: 'fork', interpreter: 'bun', script: '/srv/a.ts', args: ['x'] }), runtime),
      { command: '/home/u/.bun/bin/bun', args: ['/srv/a.ts', 'x'], node: false })
  })
})

test('usesAgent: cluster workers and node scripts in fork mode, nothing else', () => {
  assert.equal(usesAgent(appConfig({ exec_mode: 'cluster' })), true)
  assert.equal(usesAgent(appConfig({ exec_mode: 'fork', interpreter: null })), true)
  assert.equal(usesAgent(appConfig({ exec_mode: 'fork', interpreter: 'python3' })), false)
  assert.equal(usesAgent(appConfig({ exec_mode: 'fork', interpreter: 'none' })), false)
})
