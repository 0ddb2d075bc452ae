// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { acquireLock } from '../../../daemon/lock.js'
import { SupError } from '../../../ipc/errors.js'
import { waitForEvent } from '../../helpers/wait.js'

/** @param {import('node:test').TestContext} t */
function tempHome (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-lock-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return { dir, pidFile: join(dir, 'daemon.pid') }
}

/**
 * A process that sleeps, started as `node <script>`.
 * @param {import('node:test').TestContext} t
 * @param {string} script
 */
async function sleeper (t, script) {
  writeFileSync(script, 'setInterval(() => {}, 1000)\nprocess.send?.("up")\n')
  const child = spawn(process.execPath, [script], { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] })
  t.after(() => child.kill('SIGKILL'))
  await waitForEvent(child, 'message', { what: 'child message' })
  return /** @type {number} */ (child.pid)
}

describe('acquireLock', () => {
  test('takes a free lock, writes the pid, releases it', (t) => {
    const { dir, pidFile } = tempHome(t)
    const release = acquireLock(pidFile, dir)
    assert.equal(readFileSync(pidFile, 'utf8'), `${process.pid}\n`)
    release()
    assert.throws(() => readFileSync(pidFile), /ENOENT/)
  })

  test('takes over a lock whose pid is gone', async (t) => {
    const { dir, pidFile } = tempHome(t)
    const child = spawn(process.execPath, ['-e', ''])
    await waitForEvent(child, 'exit', { what: 'child exit' })
    writeFileSync(pidFile, `${child.pid}\n`)
    acquireLock(pidFile, dir)()
  })

  for (const entry of ['main.js', 'main.cjs']) {
    test(`refuses while a sup daemon holds it (daemon/${entry}, as run by hand or spawned by the CLI)`, { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
      const { dir, pidFile } = tempHome(t)
      mkdirSync(join(dir, 'daemon'))
      const pid = await sleeper(t, join(dir, 'daemon', entry))
      writeFileSync(pidFile, `${pid}\n`)
      assert.throws(() => acquireLock(pidFile, dir), (err) => err instanceof SupError && err.code === 'SUP_ERR_DAEMON_ALREADY_RUNNING' && err.details.pid === pid)
    })
  }

  test('takes over a lock whose pid now belongs to something else (reused after a reboot)', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
    const { dir, pidFile } = tempHome(t)
    const pid = await sleeper(t, join(dir, 'not-sup.js'))
    writeFileSync(pidFile, `${pid}\n`)
    acquireLock(pidFile, dir)()
  })
})
