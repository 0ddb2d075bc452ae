// @ts-check
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { preflight } from '../../../daemon/preflight.js'
import { appConfig } from '../../helpers/fake-effects.js'
import { runtimeResolver } from '../../../daemon/node-runtime/resolve.js'

const dir = mkdtempSync(join(tmpdir(), 'sup-preflight-'))
after(() => rmSync(dir, { recursive: true, force: true }))
writeFileSync(join(dir, 'app.js'), '')
writeFileSync(join(dir, 'plain.sh'), '#!/bin/sh\n', { mode: 0o644 })
writeFileSync(join(dir, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 })
mkdirSync(join(dir, 'lib'))
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin' }

/** @type {Array<[string, Partial<import('../../../ipc/app-config.js').AppConfig>, string | null]>} what, config, the code refused with */
const cases = [
  ['a node script', { script: join(dir, 'app.js') }, null],
  ['a script relative to its cwd', { script: 'app.js' }, null],
  ['an executable run as itself', { script: join(dir, 'run.sh'), interpreter: 'none' }, null],
  ['a command line (its shell)', { script: '/bin/sh', args: ['-c', 'npm start'], interpreter: 'none' }, null],
  ['a command name on PATH', { script: 'sh', interpreter: 'none' }, null],
  ['an interpreter on PATH', { script: join(dir, 'plain.sh'), interpreter: 'sh' }, null],
  ['a cwd that is gone', { cwd: join(dir, 'gone'), script: join(dir, 'app.js') }, 'SUP_ERR_CONFIG_CWD_NOT_FOUND'],
  ['a script that is gone', { script: join(dir, 'gone.js') }, 'SUP_ERR_CONFIG_SCRIPT_NOT_FOUND'],
  ['a folder as script', { script: join(dir, 'lib') }, 'SUP_ERR_CONFIG_SCRIPT_IS_DIRECTORY'],
  ['a program without an x bit', { script: join(dir, 'plain.sh'), interpreter: 'none' }, 'SUP_ERR_CONFIG_SCRIPT_NOT_EXECUTABLE'],
  ['a command name nowhere on PATH', { script: 'sup-no-such-command', interpreter: 'none' }, 'SUP_ERR_CONFIG_SCRIPT_NOT_FOUND'],
  ['an interpreter nowhere on PATH', { script: join(dir, 'plain.sh'), interpreter: 'sup-no-such-shell' }, 'SUP_ERR_INTERPRETER_NOT_FOUND'],
  ['an interpreter path that is not executable', { script: join(dir, 'app.js'), interpreter: join(dir, 'plain.sh') }, 'SUP_ERR_INTERPRETER_NOT_FOUND'],
  ['a node version nobody has', { script: join(dir, 'app.js'), runtime: 'node@1' }, 'SUP_ERR_INTERPRETER_NOT_FOUND']
]
for (const [what, overrides, code] of cases) {
  test(`preflight: ${what}`, async () => {
    const config = appConfig({ cwd: dir, exec_mode: 'fork', instances: 1, ...overrides })
    const resolve = runtimeResolver()
    await resolve.prepare(config, env)
    if (code === null) preflight(config, env, resolve)
    else assert.throws(() => preflight(config, env, resolve), { code })
  })
}
