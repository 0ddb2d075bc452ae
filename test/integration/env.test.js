// @ts-check
// A worker's environment is the request's (the shell that ran `sup start`) plus what sup adds,
// never the daemon's own (design §10): a secret of the shell that started the daemon must not
// reach an app started later from another shell.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

/**
 * The environment print-env.js logged, read from its log file once it is there.
 * @param {string} file
 * @returns {Promise<Record<string, string>>}
 */
async function loggedEnv (file) {
  const line = await waitFor(async () => (await readFile(file, 'utf8').catch(() => '')).split('\n').find((l) => l.startsWith('ENV ')), { what: `an ENV line in ${file}` })
  return JSON.parse(line.slice(4))
}

test('a variable only the daemon has reaches neither a cluster nor a fork worker', async (t) => {
  const home = useSupHome(t)
  // The first command starts the daemon, with a secret in its environment.
  const ping = await home.sup(['ping'], { env: { SUP_TEST_DAEMON_SECRET: 'from-the-first-shell' } })
  assert.equal(ping.code, 0, ping.stderr)
  const script = join(APPS, 'print-env.js')
  const shell = { SUP_TEST_SHELL_VAR: 'from-the-second-shell' }
  assert.equal((await home.sup(['start', script, '-i', '2', '--name', 'clu'], { env: shell })).code, 0)
  assert.equal((await home.sup(['start', script, '-x', '--name', 'forky'], { env: shell })).code, 0)
  for (const file of ['clu-out-0.log', 'clu-out-1.log', 'forky-out.log']) {
    const env = await loggedEnv(join(home.paths.logs, file))
    assert.equal(env.SUP_TEST_DAEMON_SECRET, undefined, `${file}: the daemon's variable leaked`)
    assert.equal(env.SUP_TEST_SHELL_VAR, 'from-the-second-shell', file)
    assert.equal(env.PATH, process.env.PATH, file)
  }
  const [first, second] = await Promise.all(['clu-out-0.log', 'clu-out-1.log'].map((f) => loggedEnv(join(home.paths.logs, f))))
  assert.deepEqual([first.NODE_APP_INSTANCE, second.NODE_APP_INSTANCE], ['0', '1'])
})
