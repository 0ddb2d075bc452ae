// @ts-check
// The config shapes and command strings a PM2 user brings (issue 9 items 6 and 7), started
// from real files by the real CLI.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, httpGet, isAlive, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { pidsRunning } from '../helpers/procs.js'
import { waitFor } from '../helpers/wait.js'

test('a .json written as PM2 reads it: comments, trailing commas, cmd, deploy env, autostart: false, pid_file', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-pm2-json-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const port = await freePort()
  writeFileSync(join(dir, 'process.json'), `// PM2 evaluates .json files as JavaScript, so people write this
{
  apps: [
    {
      name: 'web',
      cmd: '${join(APPS, 'http-server.js')}', // PM2's alias of script
      exec_mode: 'fork_mode',
      env: { PORT: ${port}, },
      pid_file: 'run/web.pid',
      combine_logs: true,
    },
    { name: 'later', script: '${join(APPS, 'http-server.js')}', autostart: false, },
  ],
  deploy: { production: { env: { APP_MODE: 'from-deploy' } } },
}
`)
  mkdirSync(join(dir, 'run'))
  const started = await home.sup(['start', join(dir, 'process.json'), '--env', 'production'])
  assert.equal(started.code, 0, started.stderr)
  const rows = await waitForRows(home, (rs) => rs.some((r) => r.name === 'web' && r.status === 'online'), { what: 'web online' })
  assert.deepEqual(rows.map((r) => `${r.name}/${r.mode}/${r.status}`).sort(), ['later/fork/stopped', 'web/fork/online'])
  assert.equal(JSON.parse((await httpGet(port)).body).env, 'from-deploy', 'deploy.production.env reaches the app')

  const web = /** @type {import('../../ipc/methods.js').WorkerRow} */ (rows.find((r) => r.name === 'web'))
  const pidFile = join(dir, 'run', `web-${web.id}.pid`)
  await waitFor(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8') === `${web.pid}\n`, { what: 'the pid file' })
  assert.equal((await home.sup(['stop', 'web'])).code, 0)
  await waitFor(() => !existsSync(pidFile), { what: 'the pid file removed once the process is gone' })

  // the autostart: false app is there to be started by hand
  assert.equal((await home.sup(['stop', 'later'])).code, 0)
  assert.equal((await home.sup(['delete', 'later'])).code, 0)
})

test('a command string runs in a shell, gets a name from its words, and stop ends its whole tree', async (t) => {
  const home = useSupHome(t)
  // a compound command keeps the shell as the parent: node, and the sleep node starts, below it
  const command = `node ${join(APPS, 'spawns-child.js')} && echo never`
  const started = await home.sup(['start', command, '--kill-timeout', '1000', '--min-uptime', '100'])
  assert.equal(started.code, 0, started.stderr)
  const [row] = await waitForRows(home, (rs) => rs.length === 1 && rs[0].status === 'online', { what: 'the command online' })
  assert.equal(row.name, 'node-spawns-child.js')
  const described = JSON.parse((await home.sup(['describe', row.name, '--json'])).stdout)
  assert.deepEqual(described.config.args, ['-c', command])
  assert.equal(described.config.interpreter, 'none')

  const tree = await waitFor(() => {
    const node = pidsRunning(home.home, 'spawns-child.js').filter((pid) => pid !== row.pid)
    const sleep = pidsRunning(home.home, '1000').filter((pid) => pid !== row.pid)
    return node.length > 0 && sleep.length > 0 ? [...node, ...sleep] : null
  }, { what: 'the node child and its sleep' })
  assert.ok(row.pid !== null && isAlive(row.pid))

  assert.equal((await home.sup(['stop', row.name])).code, 0)
  await waitForExit([(row.pid), ...tree])
})

test('sup start <command on PATH> -- <args> (as `sup start npm -- start`): run directly, no shell', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', 'sleep', '--', '30'])
  assert.equal(started.code, 0, started.stderr)
  const [row] = await waitForRows(home, (rs) => rs.length === 1 && rs[0].status === 'online', { what: 'sleep online' })
  assert.equal(row.name, 'sleep')
  const described = JSON.parse((await home.sup(['describe', 'sleep', '--json'])).stdout)
  assert.deepEqual([described.config.args, described.config.interpreter], [['30'], 'none'])
})
