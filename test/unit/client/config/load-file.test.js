// @ts-check
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { MAX_CONFIG_BYTES, MAX_CONFIG_DEPTH, isConfigFile, loadConfigFile, loadConfigText, selectApps } from '../../../../client/config/load-file.js'

/** @type {string} */
let dir

/**
 * Write a file under the temp dir, creating folders.
 * @param {string} name
 * @param {string} text
 */
function write (name, text) {
  const file = path.join(dir, name)
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, text)
  return file
}

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-load-file-'))
  // each folder's package.json decides how its .js files load
  write('cjs/package.json', '{"type":"commonjs"}')
  write('esm/package.json', '{"type":"module"}')
})

after(() => fs.rmSync(dir, { recursive: true, force: true }))

/**
 * @param {() => Promise<unknown>} fn
 * @param {string} code
 * @param {Record<string, unknown>} [details] expected subset of err.details
 */
async function assertRejectsWith (fn, code, details = {}) {
  await assert.rejects(fn, (err) => {
    assert.equal(/** @type {any} */ (err).code, code, /** @type {Error} */ (err).message)
    for (const [key, value] of Object.entries(details)) assert.equal(/** @type {any} */ (err).details[key], value, key)
    return true
  })
}

describe('isConfigFile', () => {
  const cases = [
    ['ecosystem.config.js', true], ['ecosystem.config.cjs', true], ['ecosystem.config.mjs', true],
    ['ecosystem.js', true], ['ecosystem-prod.cjs', true], ['sup.config.js', true], ['dir/pm2.config.mjs', true],
    ['apps.json', true], ['apps.yml', true], ['apps.yaml', true], ['APPS.JSON', true],
    ['server.js', false], ['index.mjs', false], ['app.py', false], ['config.js', false], ['myecosystem.js', false], ['run', false]
  ]
  for (const [file, expected] of cases) {
    test(`${file} -> ${expected}`, () => assert.equal(isConfigFile(/** @type {string} */ (file)), expected))
  }
})

describe('loadConfigFile', () => {
  const apps = [{ name: 'api', script: 'api.js', env_production: { NODE_ENV: 'production' } }, { name: 'worker', script: 'worker.js' }]
  const formats = [
    ['CJS .config.js under "type": "commonjs"', 'cjs/ecosystem.config.js', `module.exports = { apps: ${JSON.stringify(apps)} }\n`],
    ['.cjs', 'esm/ecosystem.config.cjs', `module.exports = { apps: ${JSON.stringify(apps)} }\n`],
    ['ESM .config.js under "type": "module"', 'esm/ecosystem.config.js', `export default { apps: ${JSON.stringify(apps)} }\n`],
    ['.mjs with export default', 'cjs/a.config.mjs', `export default { apps: ${JSON.stringify(apps)} }\n`],
    ['.mjs with export const apps', 'cjs/b.config.mjs', `export const apps = ${JSON.stringify(apps)}\n`],
    ['CJS bare array', 'cjs/array.config.js', `module.exports = ${JSON.stringify(apps)}\n`],
    ['.json', 'apps.json', JSON.stringify({ apps }, null, 2)],
    ['.json with a BOM', 'bom.json', '\uFEFF' + JSON.stringify({ apps })],
    ['.json as PM2 reads it: comments, trailing commas, unquoted keys, single quotes', 'pm2-style.json',
      "// PM2 evaluates .json files as JavaScript\n{\n  apps: [\n    { name: 'api', script: 'api.js', /* inline */ env_production: { NODE_ENV: 'production', }, },\n    { \"name\": \"worker\", \"script\": \"worker.js\" },\n  ],\n}\n"],
    ['.json with PM2\'s older "pm2" key', 'pm2-key.json', JSON.stringify({ pm2: apps })],
    ['.yml', 'apps.yml', 'apps:\n  - name: api\n    script: api.js\n    env_production:\n      NODE_ENV: production\n  - name: worker\n    script: worker.js\n'],
    ['.yaml bare list', 'apps.yaml', '- name: api\n  script: api.js\n  env_production: { NODE_ENV: production }\n- { name: worker, script: worker.js }\n']
  ]
  for (const [label, name, text] of formats) {
    test(label, async () => {
      const file = write(name, text)
      assert.deepEqual(await loadConfigFile(name, dir), { file, apps: structuredClone(apps) })
    })
  }

  test('a single app object with a script is wrapped', async () => {
    write('single.json', '{"name":"one","script":"one.js"}')
    assert.deepEqual((await loadConfigFile(path.join(dir, 'single.json'), '/')).apps, [{ name: 'one', script: 'one.js' }])
  })

  describe("deploy.<env>.env goes under each app's env with --env <env>, as in PM2", () => {
    const config = {
      apps: [
        { name: 'api', script: 'api.js', env: { PORT: '3000', DB: 'app' }, env_production: { DB: 'prod' } },
        { name: 'worker', script: 'worker.js' },
        { name: 'odd', script: 'odd.js', env: 'not an object' }
      ],
      deploy: { production: { host: 'h', env: { DB: 'deploy', REGION: 'eu' } }, staging: { env: { REGION: 'us' } } }
    }
    /** @type {[string | undefined, unknown[]][]} */
    const cases = [
      [undefined, [{ PORT: '3000', DB: 'app' }, undefined, 'not an object']],
      ['production', [{ DB: 'app', REGION: 'eu', PORT: '3000' }, { DB: 'deploy', REGION: 'eu' }, 'not an object']],
      ['staging', [{ REGION: 'us', PORT: '3000', DB: 'app' }, { REGION: 'us' }, 'not an object']],
      ['test', [{ PORT: '3000', DB: 'app' }, undefined, 'not an object']]
    ]
    for (const [envName, envs] of cases) {
      test(`--env ${envName}`, async () => {
        const file = write('deploy.json', JSON.stringify(config))
        const { apps } = await loadConfigFile(file, dir, { envName })
        assert.deepEqual(apps.map((app) => app.env), envs)
        assert.deepEqual(apps[0].env_production, { DB: 'prod' })
      })
    }
  })

  test('a missing file', async () => {
    await assertRejectsWith(() => loadConfigFile('nope.config.js', dir), 'SUP_ERR_CONFIG_FILE_NOT_FOUND', { file: path.join(dir, 'nope.config.js') })
  })

  const empty = [
    ['empty-apps.json', '{"apps": []}'],
    ['no-apps.json', '{"name": "x"}'],
    ['null.yml', ''],
    ['cjs/empty.config.js', 'module.exports = {}\n']
  ]
  for (const [name, text] of empty) {
    test(`no apps: ${name}`, async () => {
      const file = write(name, text)
      await assertRejectsWith(() => loadConfigFile(file, dir), 'SUP_ERR_CONFIG_FILE_NO_APPS', { file })
    })
  }

  /** @type {[string, string, string, RegExp][]} */
  const broken = [
    ['CJS .config.js', 'cjs/broken.config.js', 'module.exports = {\n  apps: [\n    { name: "a", script: "a.js" }\n    { name: "b" }\n  ]\n}\n', /^:4$/],
    ['.cjs', 'esm/broken.config.cjs', 'module.exports = {\n  apps: [\n    { name: "a" }\n    { name: "b" }\n  ]\n}\n', /^:4$/],
    ['ESM .config.js', 'esm/broken.config.js', 'export default {\n  apps: [\n    { name: "a" }\n    { name: "b" }\n  ]\n}\n', /^:4$/],
    ['.mjs', 'cjs/broken.config.mjs', 'const x = 1\n\nexport default {\n  apps: [ { name: "a" } { name: "b" } ]\n}\n', /^:4$/],
    ['.json', 'broken.json', '{\n  "apps": [\n    {"name": "a"}\n    {"name": "b"}\n  ]\n}\n', /^:4:5$/],
    // `[,]` is JavaScript (a hole), which a .json file may be, as in PM2: `[,,,}` is neither.
    ['.json stray comma', 'comma.json', '{\n  "apps": [,,,},\n}\n', /^:2:12$/],
    ['.json cut short', 'short.json', '{\n  "apps": [\n', /^:3:1$/],
    ['.yml', 'broken.yml', 'apps:\n  - name: a\n    script: a.js\n  script: b.js\n', /^:4:1$/]
  ]
  for (const [label, name, text, where] of broken) {
    test(`a syntax error in ${label} names the line`, async () => {
      const file = write(name, text)
      await assert.rejects(() => loadConfigFile(file, dir), (err) => {
        const { code, details, message } = /** @type {any} */ (err)
        assert.equal(code, 'SUP_ERR_CONFIG_FILE_SYNTAX', message)
        assert.equal(details.file, file)
        assert.match(details.where, where)
        assert.ok(message.startsWith(`config file ${file}${details.where} could not be read: `), message)
        assert.doesNotMatch(details.reason, /position \d+|at line/)
        return true
      })
    })
  }

  test('a .json file that is a JavaScript expression is evaluated, as PM2 does', async () => {
    const text = '// PM2\'s test/fixtures/configuration.json does this\n[{\n  name: "echo",\n  script: [".", "/", "e", "cho.js"].join(""),\n  instances: process.env.SUP_TEST_INSTANCES || 1\n}]\n'
    const file = write('expression.json', text)
    process.env.SUP_TEST_INSTANCES = '3'
    try {
      assert.deepEqual((await loadConfigFile(file, dir)).apps, [{ name: 'echo', script: './echo.js', instances: '3' }])
    } finally {
      delete process.env.SUP_TEST_INSTANCES
    }
  })

  test('a .json expression that throws is reported with its line and what it can use', async () => {
    const file = write('require.json', '[{\n  name: "a",\n  script: require("path").join("a", "b.js")\n}]\n')
    await assert.rejects(() => loadConfigFile(file, dir), (err) => {
      const { code, details, message } = /** @type {any} */ (err)
      assert.equal(code, 'SUP_ERR_CONFIG_FILE_SYNTAX', message)
      assert.match(details.where, /^:3:\d+$/)
      assert.match(details.reason, /^require is not defined \(a \.json file is evaluated with the language's built-ins and process\.env only; a \.config\.js file can use modules\)$/)
      return true
    })
  })

  /** @type {[string, string, string, RegExp][]} */
  const throwing = [
    ['a CJS config', 'cjs/throws.config.js', 'const port = 1\nthrow new Error("no DB_URL set")\n', /^:2:7$/],
    ['an ESM config', 'esm/throws.config.js', 'const port = 1\n\nthrow new Error("no DB_URL set")\n', /^:3:7$/],
    ['a config throwing a string', 'cjs/string.config.js', 'throw "no DB_URL set"\n', /^$/]
  ]
  for (const [label, name, text, where] of throwing) {
    test(`${label} that throws is reported with the message and where`, async () => {
      const file = write(name, text)
      await assert.rejects(() => loadConfigFile(file, dir), (err) => {
        const { code, details } = /** @type {any} */ (err)
        assert.equal(code, 'SUP_ERR_CONFIG_FILE_SYNTAX')
        assert.deepEqual({ file: details.file, reason: details.reason }, { file, reason: 'no DB_URL set' })
        assert.match(details.where, where)
        return true
      })
    })
  }

  test('a config that requires a missing module', async () => {
    const file = write('cjs/dep.config.js', 'require("sup-no-such-module")\nmodule.exports = { apps: [] }\n')
    await assert.rejects(() => loadConfigFile(file, dir), (err) => {
      const { code, details } = /** @type {any} */ (err)
      assert.equal(code, 'SUP_ERR_CONFIG_FILE_SYNTAX')
      assert.match(details.reason, /sup-no-such-module/)
      assert.match(details.where, /^:1(:\d+)?$/)
      return true
    })
  })
})

describe('selectApps', () => {
  const apps = [{ name: 'api', script: 'api.js' }, { name: 'worker', script: 'w.js' }, { script: 'lib/cron.js' }, { cmd: 'npm run serve' }]
  /** @type {[string | undefined, (string | undefined)[]][]} */
  const cases = [
    [undefined, ['api', 'worker', undefined, undefined]],
    ['', ['api', 'worker', undefined, undefined]],
    ['npm-run-serve', [undefined]],
    ['api', ['api']],
    ['worker, api', ['api', 'worker']],
    ['cron', [undefined]],
    ['api,missing', ['api']]
  ]
  for (const [only, names] of cases) {
    test(`--only ${only}`, () => {
      assert.deepEqual(selectApps(apps, only, 'eco.config.js').map((app) => app.name), names)
    })
  }
  test('no match names the file and the apps it has', () => {
    assert.throws(() => selectApps(apps, 'web,db', '/x/eco.config.js'), (err) => {
      const { code, details, message } = /** @type {any} */ (err)
      assert.equal(code, 'SUP_ERR_CONFIG_ONLY_NO_MATCH')
      assert.deepEqual(details, { only: 'web,db', file: '/x/eco.config.js', names: 'api, worker, cron, npm-run-serve' })
      assert.equal(message, '--only web,db matches no app in /x/eco.config.js (it has: api, worker, cron, npm-run-serve)')
      return true
    })
  })
})

describe('loadConfigText (sup start -)', () => {
  /** @type {[string, unknown[]][]} */
  const cases = [
    ['{ "apps": [{ "name": "a", "script": "a.js" }] }', [{ name: 'a', script: 'a.js' }]],
    ['[{ name: "a", script: "a.js" }, { script: "b.js" },] // JSON5, as a .json file', [{ name: 'a', script: 'a.js' }, { script: 'b.js' }]],
    ['\uFEFF{ "script": "one.js" }\n', [{ script: 'one.js' }]],
    ['[{ script: ["a", "js"].join(".") }] // an expression, as in PM2', [{ script: 'a.js' }]]
  ]
  for (const [text, apps] of cases) {
    test(JSON.stringify(text), async () => {
      assert.deepEqual(await loadConfigText(text), apps)
    })
  }
  test('deploy.<env>.env with an env name', async () => {
    const text = JSON.stringify({ apps: [{ script: 'a.js', env: { A: '1' } }], deploy: { production: { env: { D: '2' } } } })
    assert.deepEqual(await loadConfigText(text, { envName: 'production' }), [{ script: 'a.js', env: { D: '2', A: '1' } }])
  })
  for (const [text, code] of [['{ apps: [', 'SUP_ERR_CONFIG_FILE_SYNTAX'], ['', 'SUP_ERR_CONFIG_FILE_SYNTAX'], ['{ "apps": [] }', 'SUP_ERR_CONFIG_FILE_NO_APPS']]) {
    test(`${JSON.stringify(text)} -> ${code}, naming stdin`, async () => {
      await assert.rejects(loadConfigText(text), (err) => {
        assert.equal(/** @type {any} */ (err).code, code)
        assert.match(/** @type {Error} */ (err).message, /^config file on stdin/)
        return true
      })
    })
  }
})

describe('hostile sizes (issue 19 item 10): coded one-line errors, never a raw V8 error', () => {
  test('a config file over MAX_CONFIG_BYTES is refused before it is read', async () => {
    const file = write('huge.json', '')
    fs.truncateSync(file, MAX_CONFIG_BYTES + 1)
    await assert.rejects(loadConfigFile(file, dir), { code: 'SUP_ERR_CONFIG_FILE_TOO_LARGE', message: `config file ${file} is ${MAX_CONFIG_BYTES + 1} bytes, more than the ${MAX_CONFIG_BYTES} sup reads (split its apps over several files)` })
    await assert.rejects(loadConfigText(' '.repeat(MAX_CONFIG_BYTES + 1)), { code: 'SUP_ERR_CONFIG_FILE_TOO_LARGE' })
  })

  const deep = (/** @type {number} */ n) => '['.repeat(n) + ']'.repeat(n)
  for (const [name, text] of [['deep.json', `{ apps: [{ name: 'a', script: 'a.js', env: { X: ${deep(100_000)} } }] }`], ['deep2.json', `{ "apps": [{ "name": "a", "script": "a.js", "env": { "X": ${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)} } }] }`], ['cjs/deep.config.js', 'let v = 1; for (let i = 0; i < 100000; i++) v = [v]; module.exports = { apps: [{ name: \'a\', script: \'a.js\', env: { X: v } }] }']]) {
    test(`a value nested 100k deep (${name}) is SUP_ERR_CONFIG_FILE_SYNTAX naming where`, async () => {
      const file = write(name, text)
      await assert.rejects(loadConfigFile(file, dir), { code: 'SUP_ERR_CONFIG_FILE_SYNTAX', message: `config file ${file} could not be read: apps[0].env.X… is nested more than ${MAX_CONFIG_DEPTH} levels deep` })
    })
  }

  test('a YAML file nested deeper than its parser follows', async () => {
    const file = write('deep.yml', `apps:\n  - name: a\n    script: a.js\n    env:\n      X: ${deep(100_000)}\n`)
    await assert.rejects(loadConfigFile(file, dir), { code: 'SUP_ERR_CONFIG_FILE_SYNTAX', message: /could not be read: it is nested more than the parser can follow/ })
  })

  test('an object that holds itself is not walked forever', async () => {
    const file = write('cjs/self.config.js', 'const app = { name: \'a\', script: \'a.js\' }; app.self = app; module.exports = { apps: [app] }')
    const { apps } = await loadConfigFile(file, dir)
    assert.equal(apps.length, 1)
  })
})
