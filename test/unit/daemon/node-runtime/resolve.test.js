// @ts-check
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { VersionCache, runtimeResolver } from '../../../../daemon/node-runtime/resolve.js'

/** @type {string} */
let dir
const OWN_MAJOR = process.versions.node.split('.')[0]

/**
 * A program that answers --version as a node (or bun, deno) of that version would.
 * @param {string} file
 * @param {string} answer
 */
function fakeBinary (file, answer) {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `#!/bin/sh\necho '${answer}'\n`, { mode: 0o755 })
  return file
}

/**
 * @param {Record<string, unknown>} fields
 * @returns {import('../../../../ipc/app-config.js').AppConfig}
 */
function config (fields) {
  return /** @type {any} */ ({ ...APP_DEFAULTS, name: 'app', script: path.join(dir, 'app.js'), cwd: path.join(dir, 'plain'), ...fields })
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-resolve-'))
  fs.mkdirSync(path.join(dir, 'plain'))
  fakeBinary(path.join(dir, 'nvm', 'versions', 'node', 'v97.1.0', 'bin', 'node'), 'v97.1.0')
  fakeBinary(path.join(dir, 'nvm', 'versions', 'node', 'v97.2.3', 'bin', 'node'), 'v97.2.3')
  fakeBinary(path.join(dir, 'bin', 'node98'), 'v98.0.1')
  fakeBinary(path.join(dir, 'bin', 'bun'), '1.1.30')
  fakeBinary(path.join(dir, 'bin', 'deno'), 'deno 2.0.0 (stable, release, x86_64-unknown-linux-gnu)')
  fakeBinary(path.join(dir, 'not-node'), 'hello')
  fs.writeFileSync(path.join(dir, 'plain-file'), '#!/bin/sh\n', { mode: 0o644 })
  // nvm's aliases, as `nvm install --lts` and `nvm alias` leave them
  fs.mkdirSync(path.join(dir, 'nvm', 'alias', 'lts'), { recursive: true })
  fs.writeFileSync(path.join(dir, 'nvm', 'alias', 'lts', 'iron'), 'v97.1.0\n')
  fs.writeFileSync(path.join(dir, 'nvm', 'alias', 'lts', '*'), 'lts/iron\n')
  fs.writeFileSync(path.join(dir, 'nvm', 'alias', 'default'), '97\n')
  for (const [sub, files] of /** @type {const} */ ([
    ['nvmrc', { '.nvmrc': '97\n' }],
    ['both', { '.nvmrc': 'v97.1\n', '.node-version': '98\n' }],
    ['node-version', { '.node-version': '98.0.1\n' }],
    ['own', { '.nvmrc': `${process.version}\n` }],
    ['alias', { '.nvmrc': 'lts/iron\n' }],
    ['missing', { '.nvmrc': '99\n' }],
    ['lts', { '.nvmrc': 'lts/*\n' }],
    ['newest', { '.nvmrc': 'node\n' }]
  ])) {
    fs.mkdirSync(path.join(dir, sub))
    for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, sub, name), text)
  }
})
after(() => fs.rmSync(dir, { recursive: true, force: true }))

/**
 * Resolve as the daemon does: prepared (the --version of what it reads asked ahead), then resolved.
 * @param {import('../../../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 */
async function resolveRuntime (config, env) {
  const resolve = runtimeResolver()
  await resolve.prepare(config, env)
  return resolve(config, env)
}

describe('resolveRuntime', () => {
  const env = () => ({ PATH: path.join(dir, 'bin'), NVM_DIR: path.join(dir, 'nvm'), HOME: dir })
  /** @type {Array<[string, Record<string, unknown>, () => Record<string, unknown> | null]>} */
  const cases = [
    ['no interpreter, no version file: the daemon\'s own node', {}, () => ({ kind: 'node', path: process.execPath, version: process.version, own: true, source: 'default' })],
    ['node@<the daemon\'s major>: the daemon\'s own', { runtime: `node@${OWN_MAJOR}` }, () => ({ kind: 'node', path: process.execPath, version: process.version, own: true, source: 'interpreter' })],
    ['.nvmrc naming the daemon\'s version: its own', { cwd: path.join(dir, 'own') }, () => ({ kind: 'node', path: process.execPath, version: process.version, own: true, source: '.nvmrc' })],
    ['.nvmrc "97": the newest 97 nvm has', { cwd: path.join(dir, 'nvmrc') }, () => ({ kind: 'node', path: path.join(dir, 'nvm', 'versions', 'node', 'v97.2.3', 'bin', 'node'), version: 'v97.2.3', own: false, source: '.nvmrc' })],
    ['.nvmrc wins over .node-version, and "v97.1" matches 97.1.x', { cwd: path.join(dir, 'both') }, () => ({ kind: 'node', path: path.join(dir, 'nvm', 'versions', 'node', 'v97.1.0', 'bin', 'node'), version: 'v97.1.0', own: false, source: '.nvmrc' })],
    ['.node-version "98.0.1": node98 on PATH', { cwd: path.join(dir, 'node-version') }, () => ({ kind: 'node', path: path.join(dir, 'bin', 'node98'), version: 'v98.0.1', own: false, source: '.node-version' })],
    ['node@98: node98 on PATH', { runtime: 'node@98' }, () => ({ kind: 'node', path: path.join(dir, 'bin', 'node98'), version: 'v98.0.1', own: false, source: 'interpreter' })],
    ['a path to a node: taken as it is, .nvmrc ignored', { runtime: path.join(dir, 'bin', 'node98'), cwd: path.join(dir, 'nvmrc') }, () => ({ kind: 'node', path: path.join(dir, 'bin', 'node98'), version: 'v98.0.1', own: false, source: 'interpreter' })],
    ['the daemon\'s own path: own', { runtime: process.execPath }, () => ({ kind: 'node', path: process.execPath, version: process.version, own: true, source: 'interpreter' })],
    ['.nvmrc "lts/*": nvm\'s alias files, followed', { cwd: path.join(dir, 'lts') }, () => ({ kind: 'node', path: path.join(dir, 'nvm', 'versions', 'node', 'v97.1.0', 'bin', 'node'), version: 'v97.1.0', own: false, source: '.nvmrc' })],
    ['node@default: nvm\'s default alias', { runtime: 'node@default' }, () => ({ kind: 'node', path: path.join(dir, 'nvm', 'versions', 'node', 'v97.2.3', 'bin', 'node'), version: 'v97.2.3', own: false, source: 'interpreter' })],
    ['.nvmrc "node": the newest installed', { cwd: path.join(dir, 'newest') }, () => ({ kind: 'node', path: path.join(dir, 'nvm', 'versions', 'node', 'v97.2.3', 'bin', 'node'), version: 'v97.2.3', own: false, source: '.nvmrc' })],
    ['bun on PATH', { interpreter: 'bun' }, () => ({ kind: 'bun', path: path.join(dir, 'bin', 'bun'), version: '1.1.30', own: false, source: 'interpreter' })],
    ['deno on PATH: its version number', { interpreter: 'deno' }, () => ({ kind: 'deno', path: path.join(dir, 'bin', 'deno'), version: '2.0.0', own: false, source: 'interpreter' })],
    ['another interpreter: null, run as named', { interpreter: 'python3' }, () => null],
    ['a command: null', { interpreter: 'none' }, () => null]
  ]
  for (const [name, fields, expected] of cases) {
    test(name, async () => assert.deepEqual(await resolveRuntime(config(fields), env()), expected()))
  }

  /** @type {Array<[string, Record<string, unknown>, Record<string, string>, string, Record<string, unknown>]>} */
  const failures = [
    ['node@99, installed nowhere', { runtime: 'node@99' }, {}, 'SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: 'node 99' }],
    ['.nvmrc naming a version not installed', { cwd: path.join(dir, 'missing') }, {}, 'SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: `node 99 (from ${path.join(dir, 'missing', '.nvmrc')})` }],
    ['.nvmrc with an nvm alias nvm does not have', { cwd: path.join(dir, 'alias') }, { NVM_DIR: path.join(dir, 'nowhere') }, 'SUP_ERR_INTERPRETER_VERSION_INVALID', { value: 'lts/iron' }],
    ['an alias that climbs out of nvm\'s folder', { runtime: 'node@../../etc/passwd' }, {}, 'SUP_ERR_INTERPRETER_VERSION_INVALID', {}],
    ['an alias to a version not installed', { runtime: 'node@lts/hydrogen' }, {}, 'SUP_ERR_INTERPRETER_VERSION_INVALID', {}],
    ['node@latest', { runtime: 'node@latest' }, {}, 'SUP_ERR_INTERPRETER_VERSION_INVALID', { value: 'node@latest', source: 'interpreter' }],
    ['a path that does not exist', { runtime: path.join(dir, 'nowhere', 'node') }, {}, 'SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { reason: 'does not exist' }],
    ['a file that is not executable', { runtime: path.join(dir, 'plain-file') }, {}, 'SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { reason: 'is not an executable file' }],
    ['a program that is not node', { runtime: path.join(dir, 'not-node') }, {}, 'SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { reason: 'answered --version with "hello", not a node version' }],
    ['bun missing from PATH', { interpreter: 'bun' }, { PATH: '/nonexistent' }, 'SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: 'bun' }],
    ['deno missing from PATH', { interpreter: 'deno' }, { PATH: '/nonexistent' }, 'SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: 'deno' }]
  ]
  for (const [name, fields, envOverride, code, details] of failures) {
    test(`${name}: ${code}`, async () => {
      await assert.rejects(resolveRuntime(config(fields), { ...env(), ...envOverride }), (/** @type {any} */ err) => {
        assert.equal(err.code, code)
        for (const [key, value] of Object.entries(details)) assert.equal(err.details[key], value, key)
        assert.doesNotMatch(err.message, /\n/)
        return true
      })
    })
  }
})

describe('what binaries say to --version is asked ahead, never on the loop', () => {
  test('a resolve that was not prepared reads no binary: the one it needs is asked in the background, then known', async () => {
    const resolve = runtimeResolver()
    const node98 = config({ runtime: path.join(dir, 'bin', 'node98') })
    const env = { PATH: path.join(dir, 'bin') }
    // Not asked yet: said so, with no child process run while the call lasts.
    assert.throws(() => resolve(node98, env), { code: 'SUP_ERR_INTERPRETER_NOT_EXECUTABLE' })
    await resolve.prepare(node98, env)
    assert.equal(resolve(node98, env)?.version, 'v98.0.1')
  })

  test('prepare follows a resolution through as many binaries as it reads (node@98: node@98, node98 on PATH)', async () => {
    const resolve = runtimeResolver()
    const env = { PATH: path.join(dir, 'bin'), NVM_DIR: path.join(dir, 'nowhere'), HOME: dir }
    await resolve.prepare(config({ runtime: 'node@98' }), env)
    assert.equal(resolve(config({ runtime: 'node@98' }), env)?.path, path.join(dir, 'bin', 'node98'))
  })

  test('a binary changed in place is asked again; until then what it said before stands', async () => {
    const file = fakeBinary(path.join(dir, 'changing', 'node'), 'v96.0.0')
    const cache = new VersionCache()
    /** @type {Set<string>} */
    const missing = new Set()
    assert.equal(cache.lookup(file, missing), null)
    assert.deepEqual([...missing], [file])
    await cache.ask(file)
    missing.clear()
    assert.equal(cache.lookup(file, missing), 'v96.0.0')
    assert.equal(missing.size, 0)
    fakeBinary(file, 'v96.1.0')
    fs.utimesSync(file, new Date(), new Date(Date.now() + 5000))
    assert.equal(cache.lookup(file, missing), 'v96.0.0')
    assert.deepEqual([...missing], [file])
    await cache.ask(file)
    assert.equal(cache.lookup(file), 'v96.1.0')
  })

  test('two asks of one binary at once run it once', async () => {
    const file = path.join(dir, 'counted')
    const count = path.join(dir, 'counted.runs')
    fs.writeFileSync(file, `#!/bin/sh\necho x >> '${count}'\necho v95.0.0\n`, { mode: 0o755 })
    const cache = new VersionCache()
    await Promise.all([cache.ask(file), cache.ask(file)])
    assert.equal(fs.readFileSync(count, 'utf8'), 'x\n')
    assert.equal(cache.lookup(file), 'v95.0.0')
  })
})
