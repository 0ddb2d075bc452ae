// @ts-check
// PM2 behaviours its e2e scripts rely on (issue 9): text without a newline reaches the logs
// while the process runs; PM2_KILL_USE_MESSAGE; a .json config that is a JS expression; two
// cluster apps on one port; the git revision an app runs (vizion).
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, freePort, httpGet, isAlive, useSupHome } from '../helpers/sup.js'

test('stdout and stderr text without a newline reach the -l combined file while the process runs', async (t) => {
  const home = useSupHome(t)
  const combined = join(home.home, 'combined.log')
  const start = await home.sup(['start', join(APPS, 'partial-lines.js'), '-l', combined, '--merge-logs', '--min-uptime', '100'])
  assert.equal(start.code, 0, start.stderr)
  const [row] = await home.ls()
  const has = (/** @type {string} */ text) => existsSync(combined) && readFileSync(combined, 'utf8').includes(text)
  await waitFor(() => has('errwrite') && has('outwrite'), { what: 'both partial lines in the combined file', timeout: 5000 })
  assert.ok(row.pid !== null && isAlive(row.pid), 'the process is still running')
  assert.equal((await home.ls())[0].pid, row.pid, 'and it is the same process')
})

test('PM2_KILL_USE_MESSAGE in the daemon\'s environment: node workers are stopped with a "shutdown" message, a bash script with SIGINT', async (t) => {
  const home = useSupHome(t)
  const env = { PM2_KILL_USE_MESSAGE: 'true' }
  // The first command starts the daemon, with this environment.
  const start = await home.sup(['start', join(APPS, 'message-logger.js'), '--name', 'node-app'], { env })
  assert.equal(start.code, 0, start.stderr)
  const other = await home.sup(['start', join(APPS, 'sigint-logger.sh'), '--name', 'by-bash', '--interpreter', 'bash'], { env })
  assert.equal(other.code, 0, other.stderr)
  const logOf = (/** @type {string} */ name) => join(home.paths.logs, `${name}-out.log`)
  const read = (/** @type {string} */ name) => existsSync(logOf(name)) ? readFileSync(logOf(name), 'utf8') : ''
  await waitFor(() => read('node-app').includes('ready') && read('by-bash').includes('ready'), { what: 'both apps ready' })
  // Restarted from a shell without the variable: it is the daemon's setting.
  assert.equal((await home.sup(['restart', 'node-app', 'by-bash'])).code, 0)
  await waitFor(() => read('node-app').includes('message "shutdown"'), { what: 'the shutdown message in the node app\'s log' })
  assert.doesNotMatch(read('node-app'), /got SIGINT/)
  await waitFor(() => read('by-bash').includes('got SIGINT'), { what: 'SIGINT in the bash script\'s log' })
})

test('a .json config written as a JavaScript expression starts its apps, as in PM2', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-json-expr-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'configuration.json')
  writeFileSync(file, `// as PM2's test/fixtures/configuration.json
[{
  name: 'expr',
  script: [${JSON.stringify(APPS)}, 'signal-logger.js'].join('/'),
  env: { FROM_SHELL: process.env.SUP_TEST_FROM_SHELL || 'unset' }
}]
`)
  const start = await home.sup(['start', file], { env: { SUP_TEST_FROM_SHELL: 'yes' } })
  assert.equal(start.code, 0, start.stderr)
  const [row] = await home.ls()
  assert.equal(row.name, 'expr')
  const described = JSON.parse((await home.sup(['describe', 'expr', '--json'])).stdout)
  assert.equal(described.config.script, join(APPS, 'signal-logger.js'))
  assert.equal(described.config.env.FROM_SHELL, 'yes')

  writeFileSync(file, '[{ name: "bad", script: require("path").join("a.js") }]')
  const refused = await home.sup(['start', file])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^sup: config file .*configuration\.json:1:\d+ could not be read: require is not defined \(a \.json file is evaluated with the language's built-ins and process\.env only; a \.config\.js file can use modules\)\n$/)
})

test('two cluster apps listening on one port both come online and share its connections, as in PM2', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'sup-one-port-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'all.json')
  const app = (/** @type {string} */ name, /** @type {number} */ instances) => ({ name, script: join(APPS, 'http-server.js'), instances, env: { PORT: String(port), APP_MODE: name } })
  writeFileSync(file, JSON.stringify({ apps: [app('http', 2), app('http2', 1)] }))
  const start = await home.sup(['start', file])
  assert.equal(start.code, 0, start.stderr)
  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => [r.name, r.status]), [['http', 'online'], ['http', 'online'], ['http2', 'online']])
  const answeredBy = new Set()
  for (let i = 0; i < 12 && answeredBy.size < 2; i++) answeredBy.add(JSON.parse((await httpGet(port)).body).env)
  assert.deepEqual([...answeredBy].sort(), ['http', 'http2'])
})

test('describe shows the git revision the workers started from; --no-vizion turns it off, as in PM2', async (t) => {
  const home = useSupHome(t)
  const repo = mkdtempSync(join(tmpdir(), 'sup-vizion-'))
  t.after(() => rmSync(repo, { recursive: true, force: true }))
  const git = (/** @type {string[]} */ ...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', '-c', 'init.defaultBranch=main', ...args], { cwd: repo, encoding: 'utf8' }).trim()
  git('init', '-q')
  git('remote', 'add', 'origin', 'https://deployer:s3cret@example.com/acme/api.git')
  copyFileSync(join(APPS, 'signal-logger.js'), join(repo, 'app.cjs'))
  git('add', 'app.cjs')
  git('commit', '-q', '-m', 'first')
  const first = git('rev-parse', 'HEAD')

  assert.equal((await home.sup(['start', join(repo, 'app.cjs'), '--name', 'api'])).code, 0)
  const describe = async (/** @type {string} */ name) => JSON.parse((await home.sup(['describe', name, '--json'])).stdout)
  await waitFor(async () => (await describe('api')).versioning !== null, { what: 'the revision read' })
  assert.deepEqual((await describe('api')).versioning, { type: 'git', repo_path: repo, branch: 'main', revision: first, remote: 'https://example.com/acme/api.git' })
  const human = await home.sup(['describe', 'api'])
  assert.match(human.stdout, new RegExp(`revision: git main@${first.slice(0, 12)} \\(https://example\\.com/acme/api\\.git\\) in `))

  git('commit', '-q', '--allow-empty', '-m', 'second')
  const second = git('rev-parse', 'HEAD')
  assert.equal((await describe('api')).versioning.revision, first, 'what runs, not what is checked out')
  assert.equal((await home.sup(['restart', 'api'])).code, 0)
  await waitFor(async () => (await describe('api')).versioning.revision === second, { what: 'the new revision after a restart' })

  assert.equal((await home.sup(['start', join(repo, 'app.cjs'), '--name', 'quiet', '--no-vizion'])).code, 0)
  const quiet = await describe('quiet')
  assert.equal(quiet.config.vizion, false)
  assert.equal(quiet.versioning, null)
})

test('--shutdown-with-message on a bash script, which has no IPC channel: it gets SIGINT, as in PM2', async (t) => {
  const home = useSupHome(t)
  const start = await home.sup(['start', join(APPS, 'sigint-logger.sh'), '--name', 'sh', '--interpreter', 'bash', '--shutdown-with-message', '--kill-timeout', '30000'])
  assert.equal(start.code, 0, start.stderr)
  const log = join(home.paths.logs, 'sh-out.log')
  await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes('ready'), { what: 'the script ready' })
  // A SIGKILL at kill_timeout (30 s) would print nothing: the line says SIGINT came first.
  assert.equal((await home.sup(['stop', 'sh'])).code, 0)
  assert.match(readFileSync(log, 'utf8'), /got SIGINT/)
})
