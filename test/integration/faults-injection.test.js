// @ts-check
// Config and argv injection. What must hold: sup never runs a shell on a user's value (a
// script path, an argument, an environment value reach the app byte for byte), never writes
// a file outside SUP_HOME/logs for a name, and a value the kernel cannot take (a NUL byte, a
// "=" in a variable's name) is refused with a coded error before anything is registered.
import assert from 'node:assert/strict'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APP_DEFAULTS } from '../../ipc/app-config.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome } from '../helpers/sup.js'

/** Words a shell would act on, each leaving a file behind in its working folder if it ever ran. */
const HOSTILE = [
  '$(touch subst)',
  '`touch backtick`',
  '; touch semicolon',
  '| touch pipe',
  '&& touch and',
  '> redirect',
  "'quoted' \"double\" \\ * ? ~ $HOME",
  'line\nbreak'
]

/**
 * @param {string} file
 * @param {string} prefix
 */
function loggedJson (file, prefix) {
  return waitFor(() => {
    const text = existsSync(file) ? readFileSync(file, 'utf8') : ''
    const start = text.indexOf(`${prefix} `)
    if (start < 0) return null
    const end = text.indexOf('\n', start)
    return end < 0 ? null : { value: JSON.parse(text.slice(start + prefix.length + 1, end)) }
  }, { what: `a ${prefix} line in ${file}`, timeout: 15_000 }).then((r) => r.value)
}

for (const mode of ['fork', 'cluster']) {
  test(`shell metacharacters in the script path, args and env reach the app verbatim (${mode} mode)`, async (t) => {
    const home = useSupHome(t)
    const trap = mkdtempSync(join(tmpdir(), 'sup-trap-'))
    t.after(() => rmSync(trap, { recursive: true, force: true }))
    // A folder whose name is itself a command line.
    const dir = join(trap, 'app $(touch dirname); touch dir2 `touch dir3`')
    mkdirSync(dir)
    const script = join(dir, 'print-argv.js')
    copyFileSync(join(APPS, 'print-argv.js'), script)
    const args = HOSTILE
    const shown = '$(touch env) ; touch env2 \n second line'
    const started = await home.sup(['start', script, '--name', 'inj', ...(mode === 'cluster' ? ['-i', '1'] : ['-x']), '--', ...args], { env: { SHOWN: shown }, cwd: trap })
    assert.equal(started.code, 0, started.stderr)
    const out = join(home.paths.logs, mode === 'cluster' ? 'inj-out-0.log' : 'inj-out.log')
    assert.deepEqual(await loggedJson(out, 'ARGV'), args)
    assert.equal(await loggedJson(out, 'SHOWN'), shown)
    assert.deepEqual(readdirSync(trap), ['app $(touch dirname); touch dir2 `touch dir3`'], 'no shell ran any of it')
    assert.deepEqual(readdirSync(dir), ['print-argv.js'])
  })
}

test('a name that is a path, or holds a newline, is refused before anything is written', async (t) => {
  const home = useSupHome(t)
  const trap = mkdtempSync(join(tmpdir(), 'sup-trap-'))
  t.after(() => rmSync(trap, { recursive: true, force: true }))
  for (const name of ['../../escaped', '..', 'a/b', 'two\nlines', '$(id)', `${trap}/abs`]) {
    const config = join(trap, 'ecosystem.config.json')
    writeFileSync(config, JSON.stringify({ apps: [{ name, script: join(APPS, 'print-argv.js') }] }))
    for (const run of [['start', join(APPS, 'print-argv.js'), '--name', name], ['start', config]]) {
      const result = await home.sup(run)
      assert.equal(result.code, 1, `${JSON.stringify(name)}: ${result.stdout}`)
      // From a config file the line names the file and the app first (docs/config.md, warnings and errors).
      assert.match(result.stderr, run[1] === config ? /^sup: \S+ecosystem\.config\.json: app ".*": app name .* is not allowed/ : /^sup: app name .* is not allowed/, JSON.stringify(name))
      assert.equal(result.stderr.trim().split('\n').length, 1, `one line (a newline in the name is shown escaped): ${result.stderr}`)
    }
  }
  assert.deepEqual(await home.ls(), [])
  assert.deepEqual(readdirSync(trap), ['ecosystem.config.json'])
  assert.ok(!existsSync(join(home.paths.home, '..', 'escaped-out.log')))
  assert.deepEqual(readdirSync(home.paths.logs), [])
})

test('values the kernel cannot take are refused with a coded error; nothing half-registered', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  const conn = await home.connect()
  t.after(() => conn.close())
  const base = { ...APP_DEFAULTS, script: join(APPS, 'print-argv.js'), cwd: tmpdir(), exec_mode: 'fork' }
  const cases = {
    'NUL in an env value': { env: { X: 'a\0b' } },
    '"=" in a variable name': { env: { 'A=B': 'x' } },
    'NUL in an argument': { args: ['a\0b'] },
    'NUL in the script path': { script: '/tmp/a\0b.js' },
    'NUL in cwd': { cwd: '/tmp\0x' },
    'NUL in the interpreter': { interpreter: 'no\0de' },
    'NUL in a log path': { out_file: '/tmp/x\0y' }
  }
  let n = 0
  for (const [what, overrides] of Object.entries(cases)) {
    for (const mode of ['fork', 'cluster']) {
      const name = `bad${n++}`
      await assert.rejects(conn.request('app.start', { apps: [{ ...base, exec_mode: mode, ...overrides, name }], shellEnv: { PATH: String(process.env.PATH) } }),
        (/** @type {any} */ err) => err.code === 'SUP_ERR_IPC_INVALID_PARAMS' && /NUL byte|invalid format/.test(err.message), `${what} (${mode})`)
    }
  }
  await assert.rejects(conn.request('app.start', { apps: [{ ...base, name: 'shell' }], shellEnv: { BAD: 'a\0b' } }),
    (/** @type {any} */ err) => err.code === 'SUP_ERR_IPC_INVALID_PARAMS')
  assert.deepEqual(await conn.request('app.list'), [], 'nothing registered')
  const ping = await home.sup(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
})
