// @ts-check
// Answers where the user looks (issue 20): a mistyped verb and a config whose module is
// missing get one line that names the fix, and never a destructive guess; `jlist` and
// `prettylist` print PM2's shape for PM2's tools; -s/PM2_SILENT keeps the data asked for;
// resurrect's table shows every app its line names.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

const SCRIPT = join(APPS, 'signal-logger.js')

test('a mistyped verb: one line, a guess that changes nothing, never delete', async (t) => {
  const home = useSupHome(t)
  const desc = await home.sup(['desc', 'api'])
  assert.equal(desc.code, 1)
  assert.equal(desc.stdout, '')
  assert.equal(desc.stderr, 'sup: unknown command \'desc\'; did you mean describe? (sup --help lists commands and flags)\n')
  const delet = await home.sup(['delet', 'api'])
  assert.equal(delet.code, 1)
  assert.equal(delet.stderr.split('\n').length, 2, 'one line')
  assert.doesNotMatch(delet.stderr, /did you mean/, 'a destructive verb is never offered')
  const flag = await home.sup(['ls', '--jsn'])
  assert.equal(flag.stderr, 'sup: unknown option \'--jsn\'; did you mean --json? (sup --help lists commands and flags)\n')
})

test('a config that requires a missing package: one line naming the package and where to install it', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-config-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'package.json'), '{ "name": "app" }\n')
  writeFileSync(join(dir, 'ecosystem.config.js'), 'require(\'dotenv\').config()\nmodule.exports = { apps: [{ name: \'a\', script: \'a.js\' }] }\n')
  writeFileSync(join(dir, 'esm.config.mjs'), 'import \'dotenv/config\'\nexport default { apps: [{ name: \'a\', script: \'a.js\' }] }\n')
  const cjs = await home.sup(['start', 'ecosystem.config.js'], { cwd: dir })
  assert.equal(cjs.code, 1)
  assert.equal(cjs.stderr, `sup: ecosystem.config.js: cannot load module 'dotenv' (npm install dotenv in ${dir})\n`)
  const esm = await home.sup(['start', 'esm.config.mjs'], { cwd: dir })
  assert.equal(esm.stderr, `sup: esm.config.mjs: cannot load module 'dotenv' (npm install dotenv in ${dir})\n`)
})

test('jlist and prettylist print PM2\'s shape; ls --json stays sup\'s; -s keeps what was asked for', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'api', '-i', '2'])).code, 0)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'solo'])).code, 0)
  const rows = await waitForRows(home, (rs) => rs.length === 3 && rs.every((r) => r.status === 'online'), { what: 'three workers online' })

  const jlist = await home.sup(['jlist'])
  assert.equal(jlist.code, 0, jlist.stderr)
  const list = JSON.parse(jlist.stdout)
  assert.equal(list.length, 3)
  for (const proc of list) {
    const row = rows.find((r) => r.id === proc.pm_id)
    assert.ok(row, `pm_id ${proc.pm_id} is a worker id`)
    assert.equal(proc.name, row.name)
    assert.equal(proc.pid, row.pid)
    assert.equal(typeof proc.monit.cpu, 'number')
    assert.equal(typeof proc.monit.memory, 'number')
    const env = proc.pm2_env
    assert.equal(env.status, 'online')
    assert.equal(env.restart_time, 0)
    assert.equal(env.unstable_restarts, 0)
    assert.equal(env.pm_id, row.id)
    assert.equal(env.exec_mode, row.name === 'api' ? 'cluster_mode' : 'fork_mode')
    assert.equal(env.instances, row.name === 'api' ? 2 : 1)
    assert.equal(env.pm_exec_path, SCRIPT)
    assert.equal(env.namespace, 'default')
    assert.equal(env.NODE_APP_INSTANCE, row.instance)
    assert.ok(Math.abs(env.pm_uptime - (Date.now() - row.uptime)) < 60_000, 'pm_uptime is when it started')
    const suffix = row.name === 'api' ? `-${row.instance}` : ''
    assert.equal(env.pm_out_log_path, join(home.paths.logs, `${row.name}-out${suffix}.log`))
    assert.equal(env.pm_err_log_path, join(home.paths.logs, `${row.name}-err${suffix}.log`))
  }
  assert.equal(typeof (await home.ls())[0].status, 'string', 'ls --json keeps sup\'s rows')
  assert.equal(JSON.parse((await home.sup(['ls', '--json'])).stdout)[0].pm2_env, undefined)

  const pretty = await home.sup(['prettylist'])
  assert.match(pretty.stdout, /pm2_env: \{/)
  assert.match(pretty.stdout, /status: 'online'/)

  // Silence is for chatter: data the user asked for still comes.
  const described = await home.sup(['describe', 'api', '--json'], { env: { PM2_SILENT: 'true' } })
  assert.equal(described.code, 0, described.stderr)
  assert.equal(JSON.parse(described.stdout).name, 'api')
  assert.equal(JSON.parse((await home.sup(['-s', 'jlist'])).stdout).length, 3)
  const stopped = await home.sup(['stop', 'solo', '--json', '-s'])
  assert.equal(JSON.parse(stopped.stdout)[0].name, 'solo')
  assert.equal((await home.sup(['restart', 'solo', '-s'])).stdout, '', 'an action\'s own report is chatter')
})

test('resurrect shows in its table every app its line names', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'web'])).code, 0)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'jobs'])).code, 0)
  assert.equal((await home.sup(['save'])).code, 0)
  assert.equal((await home.sup(['delete', 'jobs'])).code, 0)
  const resurrected = await home.sup(['resurrect'])
  assert.equal(resurrected.code, 0, resurrected.stderr)
  assert.match(resurrected.stdout, /resurrected jobs from .* \(already there: web\)/)
  const table = resurrected.stdout.split('\n').slice(1).join('\n')
  assert.match(table, /\bweb\b/, 'web is named, so it is in the table')
  assert.match(table, /\bjobs\b/)
})
