// @ts-check
// PM2's restart habits against a real daemon (issue 9): ids and restart counts across reload,
// ids from 0 after `delete all`, `start` of what exists, config changes on restart/reload of a
// config file, --update-env / --env / --node-args / --watch on restart, startOrRestart and
// startOrReload, watch off on stop.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { APPS, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const HTTP = join(APPS, 'http-server.js')

test('reload keeps each instance\'s id and adds 1 to its count; delete all makes ids start from 0 again', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const env = { PORT: String(port) }
  assert.equal((await home.sup(['start', HTTP, '-i', '2', '--name', 'web'], { env })).code, 0)
  const before = await waitForRows(home, (rs) => rs.length === 2 && rs.every((r) => r.status === 'online'), { what: 'web online' })

  const reload = await home.sup(['reload', 'web'])
  assert.equal(reload.code, 0, reload.stderr)
  const after = await home.ls()
  assert.deepEqual(after.map((r) => [r.id, r.instance, r.restarts]), before.map((r) => [r.id, r.instance, 1]))
  assert.ok(after.every((r) => !before.some((b) => b.pid === r.pid)), 'new processes')
  assert.equal((await home.sup(['reload', 'web'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.restarts), [2, 2])

  // The spare ids of the retiring workers were not handed out: the next app gets id 2.
  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'other'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.id]), [['web', 0], ['web', 1], ['other', 2]])

  assert.equal((await home.sup(['delete', 'all'])).code, 0)
  assert.equal((await home.sup(['start', join(APPS, 'print-env.js'), '--name', 'again'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.id]), [['again', 0]])
})

const PRINT_ENV = join(APPS, 'print-env.js')

/**
 * The config the daemon keeps for an app.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} name
 */
async function configOf (home, name) {
  const result = await home.sup(['describe', name, '--json'])
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout).config
}

/**
 * The environment the daemon starts an app's first worker with.
 * @param {ReturnType<typeof useSupHome>} home
 * @param {string} name
 */
async function envOf (home, name) {
  const result = await home.sup(['env', name, '--json'])
  assert.equal(result.code, 0, result.stderr)
  return JSON.parse(result.stdout)[0].env
}

test('start of what exists restarts it: by name, by id, a stopped app of the same script; flags given apply', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', PRINT_ENV, '--name', 'echo'])).code, 0)
  const [first] = await waitForRows(home, (rs) => rs[0]?.status === 'online', { what: 'echo online' })

  // PM2's smart start: a stopped app comes back (not counted), a running one is restarted.
  assert.equal((await home.sup(['stop', 'echo'])).code, 0)
  const back = await home.sup(['start', 'echo'])
  assert.equal(back.code, 0, back.stderr)
  assert.match(back.stdout, /^restarted echo /)
  assert.deepEqual((await home.ls()).map((r) => [r.id, r.status, r.restarts]), [[first.id, 'online', 0]])
  assert.equal((await home.sup(['start', 'echo'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.status, r.restarts]), [['online', 1]])
  assert.equal((await home.sup(['start', String(first.id)])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.status, r.restarts]), [['online', 2]])

  // Flags given with it change the app, as PM2's `start echo --node-args=...`.
  assert.equal((await home.sup(['start', 'echo', '--node-args', '--max-old-space-size=100'])).code, 0)
  assert.deepEqual((await configOf(home, 'echo')).interpreter_args, ['--max-old-space-size=100'])

  // The script of a running app: refused, as PM2's "Script already launched"; once stopped, revived.
  const again = await home.sup(['start', PRINT_ENV, '--name', 'echo'])
  assert.equal(again.code, 1)
  assert.match(again.stderr, /app "echo" already exists/)
  assert.equal((await home.sup(['stop', 'echo'])).code, 0)
  const revived = await home.sup(['start', PRINT_ENV, '--name', 'echo', '--time'])
  assert.equal(revived.code, 0, revived.stderr)
  assert.deepEqual((await home.ls()).map((r) => [r.id, r.status]), [[first.id, 'online']])
  const config = await configOf(home, 'echo')
  assert.equal(config.time, true, 'the flag given applies')
  assert.deepEqual(config.interpreter_args, ['--max-old-space-size=100'], 'the flags not given keep their settings')

  // A word that names nothing is still a script to start.
  assert.equal((await home.sup(['start', 'no-such-app-or-file'])).code, 1)
})

test('a config file on restart, start again and startOrX: its apps take the file\'s settings, those not running start', async (t) => {
  const home = useSupHome(t)
  const file = join(home.home, 'apps.json')
  /** @param {Record<string, unknown>[]} apps */
  const write = (apps) => writeFileSync(file, JSON.stringify({ apps }))
  const a = { name: 'a', script: PRINT_ENV, env: { MSG: 'one', GONE: 'x' }, env_production: { MSG: 'prod' } }
  write([a])
  assert.equal((await home.sup(['start', file], { env: { SHELL_MARK: 'first' } })).code, 0)
  assert.equal((await envOf(home, 'a')).MSG, 'one')

  // Changed env, node args, log_date_format, args; a new app b: restart <file> applies them
  // and starts b, with the environment of the shell that runs it (PM2 updates env from a file).
  write([{ ...a, env: { MSG: 'two' }, node_args: '--max-old-space-size=64', log_date_format: 'YYYY', args: ['x'] }, { name: 'b', script: PRINT_ENV }])
  const restart = await home.sup(['restart', file], { env: { SHELL_MARK: 'second' } })
  assert.equal(restart.code, 0, restart.stderr)
  const config = await configOf(home, 'a')
  assert.deepEqual([config.interpreter_args, config.log_date_format, config.args], [['--max-old-space-size=64'], 'YYYY', ['x']])
  const env = await envOf(home, 'a')
  assert.deepEqual([env.MSG, env.GONE, env.SHELL_MARK], ['two', undefined, 'second'])
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.status, r.restarts]), [['a', 'online', 1], ['b', 'online', 0]])

  // --env on the file; on a name it is refused, as in PM2.
  assert.equal((await home.sup(['restart', file, '--env', 'production'])).code, 0)
  assert.equal((await envOf(home, 'a')).MSG, 'prod')
  const byName = await home.sup(['restart', 'a', '--env', 'production'])
  assert.equal(byName.code, 1)
  assert.match(byName.stderr, /--env production takes env_production from a config file/)

  // start <file> again restarts what runs; startOrRestart is the same; startOrReload reloads.
  assert.equal((await home.sup(['start', file])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => r.restarts), [3, 2])
  assert.equal((await home.sup(['delete', 'b'])).code, 0)
  assert.equal((await home.sup(['startOrRestart', file])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.restarts]), [['a', 4], ['b', 0]])
  const reload = await home.sup(['startOrReload', file])
  assert.equal(reload.code, 0, reload.stderr)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.restarts]), [['a', 5], ['b', 1]])
  assert.equal((await home.sup(['delete', 'b'])).code, 0)
  const graceful = await home.sup(['startOrGracefulReload', file])
  assert.equal(graceful.code, 0, graceful.stderr)
  assert.match(graceful.stdout, /started b/)
  assert.equal((await home.sup(['startOrReload', 'a'])).code, 1, 'a config file only')
})

test('restart by name keeps the environment it was started with; --update-env and --node-args change it', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', PRINT_ENV, '--name', 'env'], { env: { TEST_VARIABLE: 'hello1' } })).code, 0)
  assert.equal((await home.sup(['restart', 'env'], { env: { TEST_VARIABLE: 'other' } })).code, 0)
  assert.equal((await envOf(home, 'env')).TEST_VARIABLE, 'hello1')
  assert.equal((await home.sup(['restart', 'env', '--update-env'], { env: { TEST_VARIABLE: '89hello89' } })).code, 0)
  assert.equal((await envOf(home, 'env')).TEST_VARIABLE, '89hello89')
  assert.equal((await home.sup(['restart', 'env', '-a'], { env: { TEST_VARIABLE: 'again' } })).code, 0)
  assert.equal((await envOf(home, 'env')).TEST_VARIABLE, 'again')
  assert.equal((await home.sup(['restart', 'env'], { env: { TEST_VARIABLE: 'CLUNEWSTER' } })).code, 0)
  assert.equal((await envOf(home, 'env')).TEST_VARIABLE, 'again')

  assert.equal((await home.sup(['restart', 'env', '--node-args=--max-old-space-size=80'])).code, 0)
  assert.deepEqual((await configOf(home, 'env')).interpreter_args, ['--max-old-space-size=80'])
  assert.equal((await home.sup(['reload', 'env', '--node-args=null'])).code, 0)
  assert.deepEqual((await configOf(home, 'env')).interpreter_args, [])
})

test('watch: off on stop and stays off on a plain restart; restart --watch toggles it; the config file turns it back on', async (t) => {
  const home = useSupHome(t)
  /** what the daemon watches: the config key, and whether a watcher runs */
  const watching = async (/** @type {string} */ name) => {
    const result = await home.sup(['describe', name, '--json'])
    const { config, triggers } = JSON.parse(result.stdout)
    return [config.watch, triggers.watch !== null]
  }
  const dir = join(home.home, 'app')
  mkdirSync(dir)
  assert.equal((await home.sup(['start', PRINT_ENV, '--name', 'http', '--cwd', dir, '--watch'])).code, 0)
  assert.deepEqual(await watching('http'), [true, true])
  assert.equal((await home.sup(['stop', 'http'])).code, 0)
  assert.deepEqual(await watching('http'), [false, false])
  assert.equal((await home.sup(['start', 'http'])).code, 0)
  assert.deepEqual(await watching('http'), [false, false])
  assert.equal((await home.sup(['restart', 'http', '--watch'])).code, 0)
  assert.deepEqual(await watching('http'), [true, true])
  assert.equal((await home.sup(['restart', 'http', '--watch'])).code, 0)
  assert.deepEqual(await watching('http'), [false, false])
  assert.equal((await home.sup(['delete', 'all'])).code, 0)

  const file = join(home.home, 'app-watch.json')
  writeFileSync(file, JSON.stringify({ apps: [{ name: 'w', script: PRINT_ENV, cwd: dir, watch: true }] }))
  assert.equal((await home.sup(['start', file])).code, 0)
  assert.deepEqual(await watching('w'), [true, true])
  assert.equal((await home.sup(['stop', file])).code, 0)
  assert.deepEqual(await watching('w'), [false, false])
  assert.equal((await home.sup(['restart', file])).code, 0)
  assert.deepEqual(await watching('w'), [true, true])
  assert.deepEqual((await home.ls()).map((r) => [r.status, r.restarts]), [['online', 0]])
})

test('--name on restart, reload and start of an existing app renames it (one app, a free name), keeping its ids', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', PRINT_ENV, '--name', 'echo'])).code, 0)
  assert.equal((await home.sup(['start', PRINT_ENV, '--name', 'other'])).code, 0)
  assert.equal((await home.sup(['restart', '0', '--name', 'new-name'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.id, r.name, r.restarts]), [[0, 'new-name', 1], [1, 'other', 0]])
  assert.equal((await home.sup(['reset', 'all'])).code, 0)
  assert.equal((await home.sup(['restart', 'new-name'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.name, r.restarts]), [['new-name', 1], ['other', 0]])
  assert.equal((await home.sup(['start', '0', '--name', 'new-name-2'])).code, 0)
  assert.equal((await home.sup(['reload', 'new-name-2', '--name', 'third'])).code, 0)
  assert.deepEqual((await home.ls()).map((r) => [r.id, r.name]), [[0, 'third'], [1, 'other']])

  const taken = await home.sup(['restart', 'third', '--name', 'other'])
  assert.equal(taken.code, 1)
  assert.match(taken.stderr, /app "other" already exists/)
  const many = await home.sup(['restart', 'all', '--name', 'one'])
  assert.equal(many.code, 1)
  assert.match(many.stderr, /cannot rename 2 apps to "one"/)
  assert.deepEqual((await home.ls()).map((r) => r.name), ['third', 'other'])
})
