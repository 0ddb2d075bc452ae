// @ts-check
// Issue 11 part 3: an app runs on the node it asks for (interpreter path, node@<major>,
// .nvmrc), in cluster mode too, where its workers are forked by a primary on that node
// (daemon/node-runtime/). PM2 ignores `interpreter` in cluster mode (PM2 #5777, #4787).
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { accessSync, chmodSync, constants, mkdirSync, mkdtempSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync, copyFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, freePort, httpGet, useSupHome, waitForExit, waitForRows } from '../helpers/sup.js'
import { underLoad, waitForHttp } from '../helpers/under-load.js'
import { describeLoad } from '../helpers/load.js'

/** A major other than the one running this test (and the daemon). */
const MAJOR = Number(process.versions.node.split('.')[0]) === 22 ? 24 : 22
/** Where CI keeps the nodes it installs (.ci/run), reused between runs. */
const NODE_DIR = join(process.env.SUP_CI_NODE_DIR ?? join(process.env.TMPDIR ?? tmpdir(), 'sup-ci-node'), String(MAJOR))
const INSTALL_TIMEOUT = 240_000

/**
 * The `node` package from npm (node@MAJOR) in NODE_DIR: installed when not there yet.
 * @returns {Promise<{ path: string, version: string }>}
 */
async function secondNode () {
  const path = join(NODE_DIR, 'node_modules', 'node', 'bin', 'node')
  const version = () => execFileSync(path, ['--version'], { encoding: 'utf8', timeout: 10_000 }).trim()
  try {
    accessSync(path, constants.X_OK)
    if (version().startsWith(`v${MAJOR}.`)) return { path, version: version() }
  } catch {}
  mkdirSync(NODE_DIR, { recursive: true })
  await new Promise((resolve, reject) => {
    execFile('npm', ['install', '--prefix', NODE_DIR, '--no-audit', '--no-fund', '--no-save', `node@${MAJOR}`], { timeout: INSTALL_TIMEOUT }, (err, stdout, stderr) => {
      if (err) reject(new Error(`npm install node@${MAJOR} failed: ${stderr || err.message}`))
      else resolve(stdout)
    })
  })
  return { path, version: version() }
}

/**
 * GET until `count` distinct pids have answered; every body, parsed.
 * @param {number} port
 * @param {number} count
 */
async function answersFrom (port, count) {
  const bodies = new Map()
  for (let i = 0; i < 60 && bodies.size < count; i++) {
    const { status, body } = await httpGet(port)
    assert.equal(status, 200)
    const parsed = JSON.parse(body)
    bodies.set(parsed.pid, parsed)
  }
  return [...bodies.values()]
}

/**
 * A folder with the app (app.js) and an nvm folder (nvm/) holding the second node, as
 * `nvm install` lays it out; removed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {{ path: string, version: string }} node
 */
function appWithNvm (t, node) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-nvm-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const nvmBin = join(dir, 'nvm', 'versions', 'node', node.version, 'bin')
  mkdirSync(nvmBin, { recursive: true })
  symlinkSync(node.path, join(nvmBin, 'node'))
  copyFileSync(join(APPS, 'version-http.js'), join(dir, 'app.js'))
  return { dir, nvmBin }
}

/**
 * @param {number[]} pids
 * @param {string} binary
 */
function assertRunOn (pids, binary) {
  for (const pid of pids) assert.equal(realpathSync(readlinkSync(`/proc/${pid}/exe`)), realpathSync(binary), `pid ${pid} runs ${binary}`)
}

test(`cluster mode (-i 2) with interpreter: the path of node ${MAJOR}: workers run on it, ls and describe show it, and it reloads under load with 0 failed requests`, async (t) => {
  const node = await secondNode()
  assert.notEqual(node.version, process.version)
  const home = useSupHome(t)
  const port = await freePort()
  const started = await home.sup(['start', join(APPS, 'version-http.js'), '-i', '2', '--name', 'v', '--interpreter', node.path], { env: { PORT: String(port) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)

  const rows = await home.ls()
  assert.deepEqual(rows.map((r) => [r.mode, r.status]), [['cluster', 'online'], ['cluster', 'online']])
  const answers = await answersFrom(port, 2)
  assert.deepEqual(answers.map((a) => a.version), [node.version, node.version])
  assert.deepEqual(answers.map((a) => a.pid).sort(), rows.map((r) => r.pid).sort())
  assertRunOn(/** @type {number[]} */ (rows.map((r) => r.pid)), node.path)
  for (const row of rows) assert.deepEqual(row.runtime, { kind: 'node', path: node.path, version: node.version, source: 'interpreter' })
  const described = await home.sup(['describe', 'v'])
  assert.equal(described.code, 0, described.stderr)
  assert.match(described.stdout, new RegExp(`runtime node ${node.version.replaceAll('.', '\\.')} ${node.path} \\(from interpreter\\)`))
  const logs = await home.sup(['logs', 'v', '--lines', '10', '--nostream'])
  assert.equal(logs.code, 0, logs.stderr)
  assert.equal(logs.stdout.split('\n').filter((line) => line.includes(`listening on node ${node.version}`)).length, 2, logs.stdout)

  const seen = await underLoad(port, async () => {
    const reload = await home.sup(['reload', 'v'])
    assert.equal(reload.code, 0, reload.stderr)
  })
  assert.equal(seen.keepAlive.failed, 0, `keep-alive client: ${describeLoad(seen.keepAlive)}`)
  assert.equal(seen.fresh.failed, 0, `fresh-connection client: ${describeLoad(seen.fresh)}`)
  assert.deepEqual(new Set(seen.bodies.map((b) => b.version)), new Set([node.version]), 'every answer came from the second node')
  const after = await home.ls()
  assert.equal(after.filter((r) => r.status === 'online').length, 2)
  assert.ok(after.every((r) => !rows.some((old) => old.pid === r.pid)), 'every worker was replaced')
  await waitForExit(/** @type {number[]} */ (rows.map((r) => r.pid)))
  assertRunOn(/** @type {number[]} */ (after.map((r) => r.pid)), node.path)
})

test(`fork mode and node@${MAJOR}: the app runs on the node found on PATH`, async (t) => {
  const node = await secondNode()
  const home = useSupHome(t)
  const port = await freePort()
  const bin = mkdtempSync(join(tmpdir(), 'sup-node-path-'))
  t.after(() => rmSync(bin, { recursive: true, force: true }))
  symlinkSync(node.path, join(bin, `node${MAJOR}`))
  const env = { PORT: String(port), PATH: `${bin}:${process.env.PATH}` }
  const started = await home.sup(['start', join(APPS, 'version-http.js'), '--name', 'f', '--interpreter', `node@${MAJOR}`], { env })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)
  const [row] = await home.ls()
  assert.equal(row.mode, 'fork')
  assert.deepEqual(row.runtime, { kind: 'node', path: join(bin, `node${MAJOR}`), version: node.version, source: 'interpreter' })
  assert.equal(JSON.parse((await httpGet(port)).body).version, node.version)
})

test(`.nvmrc in the app's cwd picks node ${MAJOR} from nvm's folder, in cluster mode`, async (t) => {
  const node = await secondNode()
  const home = useSupHome(t)
  const port = await freePort()
  const { dir, nvmBin } = appWithNvm(t, node)
  writeFileSync(join(dir, '.nvmrc'), `${MAJOR}\n`)
  const env = { PORT: String(port), NVM_DIR: join(dir, 'nvm') }
  const started = await home.sup(['start', join(dir, 'app.js'), '-i', '2', '--name', 'n', '--cwd', dir], { env })
  assert.equal(started.code, 0, started.stderr)
  await waitForHttp(port)
  const rows = await home.ls()
  for (const row of rows) assert.deepEqual(row.runtime, { kind: 'node', path: join(nvmBin, 'node'), version: node.version, source: '.nvmrc' })
  const answers = await answersFrom(port, 2)
  assert.deepEqual(answers.map((a) => a.version), [node.version, node.version])
})

test('a runtime that cannot be found refuses the start with one coded line, and the daemon carries on', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-bad-runtime-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const notExecutable = join(dir, 'node')
  writeFileSync(notExecutable, '#!/bin/sh\n')
  chmodSync(notExecutable, 0o644)
  const versionDir = join(dir, 'nvmrc-app')
  mkdirSync(versionDir)
  copyFileSync(join(APPS, 'version-http.js'), join(versionDir, 'app.js'))
  writeFileSync(join(versionDir, '.nvmrc'), '99\n')
  const aliasDir = join(dir, 'alias-app')
  mkdirSync(aliasDir)
  copyFileSync(join(APPS, 'version-http.js'), join(aliasDir, 'app.js'))
  writeFileSync(join(aliasDir, '.node-version'), 'lts/*\n')
  const env = { NVM_DIR: join(dir, 'no-nvm') }
  const script = join(APPS, 'version-http.js')
  const cases = [
    { args: [script, '-i', '2', '--name', 'a', '--interpreter', 'node@99'], message: /^sup: no node 99 for app "a": install it \(nvm install 99\), or set interpreter to the path of a node binary$/ },
    { args: [script, '--name', 'b', '--interpreter', notExecutable], message: new RegExp(`^sup: interpreter ${notExecutable} of app "b" is not an executable file \\(give the path of a node binary`) },
    { args: [script, '--name', 'c', '--interpreter', join(dir, 'missing', 'node')], message: /of app "c" does not exist/ },
    { args: [join(versionDir, 'app.js'), '-i', '2', '--name', 'd', '--cwd', versionDir], message: new RegExp(`^sup: no node 99 \\(from ${versionDir}/\\.nvmrc\\) for app "d"`) },
    { args: [join(aliasDir, 'app.js'), '--name', 'e', '--cwd', aliasDir], message: /^sup: .*\.node-version of app "e" asks for node "lts\/\*", which is not a version sup can find/ },
    { args: [script, '--name', 'f', '--interpreter', 'bun'], message: /^sup: no bun for app "f": install bun/ },
    { args: [script, '--name', 'g', '--interpreter', 'deno'], message: /^sup: no deno for app "g": install deno/ }
  ]
  for (const { args, message } of cases) {
    const result = await home.sup(['start', ...args], { env: { ...env, PATH: '/usr/bin:/bin' } })
    assert.notEqual(result.code, 0, `${args.join(' ')} was refused`)
    const lines = result.stderr.trim().split('\n')
    assert.equal(lines.length, 1, result.stderr)
    assert.match(lines[0], message)
  }
  assert.deepEqual(await home.ls(), [])
  assert.equal((await home.sup(['ping'])).code, 0)
})

test(`a cluster app moves to node ${MAJOR} by reload once its .nvmrc says so; a crashed worker stays on its siblings' node until then`, async (t) => {
  const node = await secondNode()
  const home = useSupHome(t)
  const port = await freePort()
  const { dir } = appWithNvm(t, node)
  const env = { PORT: String(port), NVM_DIR: join(dir, 'nvm') }
  assert.equal((await home.sup(['start', join(dir, 'app.js'), '-i', '2', '--name', 'm', '--cwd', dir], { env })).code, 0)
  await waitForHttp(port)
  const first = await home.ls()
  assert.deepEqual(first.map((r) => r.runtime?.version), [process.version, process.version])

  writeFileSync(join(dir, '.nvmrc'), `${node.version}\n`)
  const crashed = /** @type {number} */ (first[0].pid)
  process.kill(crashed, 'SIGKILL')
  const back = await waitForRows(home, (rows) => rows.every((r) => r.status === 'online' && r.pid !== crashed), { what: 'the crashed worker replaced' })
  assert.deepEqual(back.map((r) => r.runtime?.version), [process.version, process.version], 'the replacement keeps its sibling\'s node')

  const reload = await home.sup(['reload', 'm'])
  assert.equal(reload.code, 0, reload.stderr)
  assert.match(reload.stdout, new RegExp(`m moves to node ${node.version.replaceAll('.', '\\.')} .*by a restart`))
  await waitForHttp(port)
  const moved = await home.ls()
  assert.deepEqual(moved.map((r) => [r.status, r.runtime?.version, r.runtime?.source]), [['online', node.version, '.nvmrc'], ['online', node.version, '.nvmrc']])
  assert.deepEqual(moved.map((r) => r.restarts), back.map((r) => r.restarts + 1), 'the move counts as a restart')
  const answers = await answersFrom(port, 2)
  assert.deepEqual(answers.map((a) => a.version), [node.version, node.version])
})
