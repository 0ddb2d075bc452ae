// @ts-check
import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, test } from 'node:test'
import { APP_CONFIG_SCHEMA, APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { validate } from '../../../../ipc/schema.js'
import { detectInterpreter } from '../../../../client/config/interpreter.js'
import { normalizeApp, parseBytes, parseDuration, parseInstances } from '../../../../client/config/normalize.js'
import { parseCores } from '../../../../client/config/read-value.js'

/** @typedef {import('../../../../ipc/app-config.js').AppConfig} AppConfig */

/** @type {string} */
let dir

before(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-normalize-'))
  fs.writeFileSync(path.join(dir, 'hello.js'), 'console.log("hi")\n')
  fs.writeFileSync(path.join(dir, 'app.py'), 'print("hi")\n')
  fs.writeFileSync(path.join(dir, 'serve'), '#!/usr/bin/env python3 -u\nprint("hi")\n')
  fs.writeFileSync(path.join(dir, 'run-sh'), '#!/bin/sh\necho hi\n')
  fs.writeFileSync(path.join(dir, 'run-node'), '#!/usr/bin/env node\nconsole.log(1)\n')
  fs.writeFileSync(path.join(dir, 'run-env-s'), '#!/usr/bin/env -S node --max-old-space-size=64\nconsole.log(1)\n')
  fs.writeFileSync(path.join(dir, 'binary'), 'not a script\n', { mode: 0o755 })
  fs.writeFileSync(path.join(dir, 'plain'), 'console.log(1)\n', { mode: 0o644 })
  fs.mkdirSync(path.join(dir, 'sub'))
  fs.mkdirSync(path.join(dir, 'sub', 'src'))
  fs.writeFileSync(path.join(dir, 'sub', 'worker.js'), '\n')
})

after(() => fs.rmSync(dir, { recursive: true, force: true }))

/**
 * @param {Record<string, unknown>} raw
 * @param {Partial<import('../../../../client/config/normalize.js').NormalizeOptions>} [options]
 */
function normalize (raw, options = {}) {
  return normalizeApp(raw, { cwd: dir, cpus: 8, source: null, ...options })
}

/**
 * @param {() => unknown} fn
 * @param {string} code
 * @param {Record<string, unknown>} [details] expected subset of err.details
 */
function assertSupError (fn, code, details = {}) {
  assert.throws(fn, (err) => {
    assert.equal(/** @type {any} */ (err).code, code)
    for (const [key, value] of Object.entries(details)) assert.equal(/** @type {any} */ (err).details[key], value, key)
    return true
  })
}

describe('parseInstances', () => {
  const cases = [
    [1, 1], [4, 4], ['3', 3], [' 2 ', 2], ['max', 8], [0, 8], ['0', 8],
    [-1, 7], ['-2', 6], [-8, 1], [-20, 1], [1024, 1024]
  ]
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} -> ${expected}`, () => assert.equal(parseInstances(value, 8), expected))
  }
  for (const value of ['abc', 1.5, '1.5', '', '  ', {}, null, true, NaN, 'max2', 1025]) {
    test(`${JSON.stringify(value)} is rejected`, () => {
      assertSupError(() => parseInstances(value, 8), 'SUP_ERR_CONFIG_INVALID_INSTANCES')
    })
  }
})

describe('parseDuration', () => {
  const cases = [
    [0, 0], [1500, 1500], ['1500', 1500], ['1500ms', 1500], ['5s', 5000], ['1.5s', 1500],
    ['2m', 120_000], ['1h', 3_600_000], [' 10 s ', 10_000], ['3S', 3000]
  ]
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} -> ${expected}`, () => assert.equal(parseDuration(value, 'kill_timeout'), expected))
  }
  for (const value of ['soon', '', '5d', '-1', -1, {}, [], true, Infinity, '1e3', 2 ** 31]) {
    test(`${JSON.stringify(value)} is rejected naming the option`, () => {
      assertSupError(() => parseDuration(value, 'kill_timeout'), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'kill_timeout' })
    })
  }
})

describe('parseBytes', () => {
  const cases = [
    [1024, 1024], ['1024', 1024], ['512K', 512 * 1024], ['200M', 200 * 1024 ** 2], ['1G', 1024 ** 3],
    ['100MB', 100 * 1024 ** 2], ['1.5G', 1.5 * 1024 ** 3], ['200m', 200 * 1024 ** 2], ['64MiB', 64 * 1024 ** 2]
  ]
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} -> ${expected}`, () => assert.equal(parseBytes(value, 'max_memory_restart'), expected))
  }
  for (const value of ['lots', '', '0', 0, -5, '200X', 'M', {}, true]) {
    test(`${JSON.stringify(value)} is rejected naming the option`, () => {
      assertSupError(() => parseBytes(value, 'max_memory_restart'), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'max_memory_restart' })
    })
  }
})

describe('parseCores', () => {
  const cases = [[1.5, 1.5], ['1.5', 1.5], ['2', 2], ['50%', 0.5], ['150%', 1.5], ['500m', 0.5], ['.25', 0.25], [0.01, 0.01], ['1024', 1024]]
  for (const [value, expected] of cases) {
    test(`${JSON.stringify(value)} -> ${expected} cores`, () => assert.equal(parseCores(value, 'cpu_limit'), expected))
  }
  for (const value of ['fast', '', '0', 0, -1, '0.001', '2000', '1.5 cores', '5m', {}, true]) {
    test(`${JSON.stringify(value)} is rejected naming the option`, () => {
      assertSupError(() => parseCores(value, 'cpu_limit'), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'cpu_limit' })
    })
  }
})

describe('detectInterpreter', () => {
  const cases = [
    ['hello.js', null, []],
    ['x.mjs', null, []],
    ['x.cjs', null, []],
    ['app.py', 'python3', []],
    ['x.sh', 'bash', []],
    ['x.rb', 'ruby', []],
    ['x.php', 'php', []],
    ['x.pl', 'perl', []],
    ['serve', 'python3', ['-u']],
    ['run-sh', '/bin/sh', []],
    ['run-node', null, []],
    ['run-env-s', null, ['--max-old-space-size=64']],
    ['binary', 'none', []],
    ['plain', null, []],
    ['missing', null, []]
  ]
  for (const [file, interpreter, interpreterArgs] of cases) {
    test(`${file} -> ${interpreter}`, () => {
      assert.deepEqual(detectInterpreter(path.join(dir, /** @type {string} */ (file))), { interpreter, interpreterArgs })
    })
  }
})

describe('normalizeApp', () => {
  test('fills every key of the schema with defaults and passes validation', () => {
    const config = normalize({ script: 'hello.js' })
    assert.deepEqual(Object.keys(config).sort(), Object.keys(/** @type {{ properties: object }} */ (APP_CONFIG_SCHEMA).properties).sort())
    assert.equal(validate(APP_CONFIG_SCHEMA, config, 'config'), null)
    assert.deepEqual(config, {
      ...APP_DEFAULTS,
      name: 'hello',
      script: path.join(dir, 'hello.js'),
      cwd: dir
    })
  })

  test('a fully specified PM2 entry normalises and validates', () => {
    const config = normalize({
      name: 'api',
      namespace: 'web',
      script: 'worker.js',
      cwd: 'sub',
      args: ['--port', 3000],
      instances: 'max',
      exec_mode: 'cluster_mode',
      node_args: '--max-old-space-size=512 --inspect',
      env: { PORT: 3000, DEBUG: false, OPTS: { a: 1 }, DROP: 'x' },
      env_production: { NODE_ENV: 'production', DROP: null },
      user: 'www-data',
      gid: 33,
      instance_var: 'INSTANCE_ID',
      increment_var: 'PORT',
      wait_ready: 'true',
      listen_timeout: '10s',
      kill_timeout: 3000,
      shutdown_with_message: true,
      max_restarts: '5',
      min_uptime: '2s',
      restart_delay: '100ms',
      exp_backoff_restart_delay: 100,
      autorestart: 'false',
      autostart: false,
      vizion: false,
      stop_exit_codes: [0, 2],
      max_memory_restart: '300M',
      memory_max: '512M',
      memory_high: '400M',
      max_cpu: '150%',
      max_pids: '64',
      pid_file: 'run/api.pid',
      output: 'logs/out.log',
      err_file: 'NULL',
      combine_logs: true,
      time: true,
      log_type: 'json',
      log_date_format: 'YYYY-MM-DD',
      cron_restart: '0 * * * *',
      watch: ['src'],
      ignore_watch: ['node_modules'],
      balance: 'least-conn',
      sticky: 'true',
      sticky_cookie: 'io',
      trust_proxy: true,
      readiness: { http: '/ready', period: '2s' },
      liveness: { tcp: 3000, failure_threshold: 2 },
      depends_on: 'db',
      some_future_key: 1
    }, { envName: 'production', source: path.join(dir, 'ecosystem.config.js') })
    assert.equal(validate(APP_CONFIG_SCHEMA, config, 'config'), null)
    assert.deepEqual(config, {
      name: 'api',
      namespace: 'web',
      script: path.join(dir, 'sub', 'worker.js'),
      args: ['--port', '3000'],
      cwd: path.join(dir, 'sub'),
      exec_mode: 'cluster',
      instances: 8,
      interpreter: null,
      runtime: null,
      interpreter_args: ['--max-old-space-size=512', '--inspect'],
      env: { PORT: '3000', DEBUG: 'false', OPTS: '{"a":1}', NODE_ENV: 'production' },
      uid: 'www-data',
      gid: 33,
      instance_var: 'INSTANCE_ID',
      increment_var: 'PORT',
      wait_ready: true,
      listen_timeout: 10_000,
      kill_timeout: 3000,
      shutdown_with_message: true,
      max_restarts: 5,
      min_uptime: 2000,
      restart_delay: 100,
      exp_backoff_restart_delay: 100,
      autorestart: false,
      autostart: false,
      vizion: false,
      stop_exit_codes: [0, 2],
      max_memory_restart: 300 * 1024 ** 2,
      max_memory: 512 * 1024 ** 2,
      memory_high: 400 * 1024 ** 2,
      cpu_limit: 1.5,
      max_pids: 64,
      out_file: path.join(dir, 'sub', 'logs', 'out.log'),
      error_file: '/dev/null',
      log_file: null,
      pid_file: path.join(dir, 'sub', 'run', 'api.pid'),
      merge_logs: true,
      time: true,
      log_date_format: 'YYYY-MM-DD',
      log_type: 'json',
      log_max_size: null,
      log_retain: null,
      log_compress: null,
      cron_restart: '0 * * * *',
      watch: true,
      watch_paths: [path.join(dir, 'sub', 'src')],
      ignore_watch: ['node_modules'],
      watch_delay: 1000,
      listen: [],
      balance: 'least-conn',
      sticky: true,
      sticky_cookie: 'io',
      trust_proxy: true,
      readiness: { type: 'http', host: '127.0.0.1', port: null, path: '/ready', status: null, command: [], initial_delay: 0, period: 2000, timeout: 1000, failure_threshold: 3, success_threshold: 1 },
      liveness: { type: 'tcp', host: '127.0.0.1', port: 3000, path: '', status: null, command: [], initial_delay: 0, period: 10_000, timeout: 1000, failure_threshold: 2, success_threshold: 1 },
      depends_on: ['db'],
      source: path.join(dir, 'ecosystem.config.js')
    })
  })

  describe('name', () => {
    /** @type {[Record<string, unknown>, string][]} */
    const cases = [
      [{ script: 'hello.js' }, 'hello'],
      [{ script: './sub/worker.js' }, 'worker'],
      [{ script: 'hello.js', name: 'web-1.v2_x' }, 'web-1.v2_x'],
      [{ script: 'serve' }, 'serve']
    ]
    for (const [raw, name] of cases) {
      test(`${JSON.stringify(raw)} -> ${name}`, () => assert.equal(normalize(raw).name, name))
    }
    for (const name of ['../x', 'a b', '.hidden', '-dash', 'a/b', 'x'.repeat(65)]) {
      test(`${JSON.stringify(name)} is rejected`, () => {
        assertSupError(() => normalize({ script: 'hello.js', name }), 'SUP_ERR_APP_NAME_INVALID', { name })
      })
    }
    test('a name that is not a string is rejected', () => {
      assertSupError(() => normalize({ script: 'hello.js', name: 42 }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'name' })
    })
  })

  describe('namespace', () => {
    test('defaults to "default"', () => assert.equal(normalize({ script: 'hello.js' }).namespace, 'default'))
    test('a namespace outside the names\' alphabet is an invalid option', () => {
      assertSupError(() => normalize({ script: 'hello.js', namespace: 'a b' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'namespace' })
    })
  })

  describe('script and cwd', () => {
    test('a missing script is an invalid option', () => {
      assertSupError(() => normalize({ name: 'x' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'script' })
    })
    test('a script that does not exist names the cwd it looked in', () => {
      assertSupError(() => normalize({ script: 'nope.js' }), 'SUP_ERR_CONFIG_SCRIPT_NOT_FOUND', { script: 'nope.js', cwd: dir })
    })
    test('a path with a slash is never looked up on PATH', () => {
      assertSupError(() => normalize({ script: './sh' }), 'SUP_ERR_CONFIG_SCRIPT_NOT_FOUND', { script: './sh' })
    })
    test('a bare command that is on no PATH is not found', () => {
      assertSupError(() => normalize({ script: 'sup-no-such-command-xyz' }), 'SUP_ERR_CONFIG_SCRIPT_NOT_FOUND')
    })
    test('a directory is rejected', () => {
      assertSupError(() => normalize({ script: 'sub' }), 'SUP_ERR_CONFIG_SCRIPT_IS_DIRECTORY', { script: 'sub' })
    })
    test('a bare command is found on PATH and run directly', () => {
      const config = normalize({ script: 'sh', args: '-c "echo hi there"' })
      assert.ok(path.isAbsolute(config.script) && path.basename(config.script) === 'sh', config.script)
      assert.equal(config.interpreter, 'none')
      assert.equal(config.name, 'sh')
      assert.deepEqual(config.args, ['-c', 'echo hi there'])
    })
    test('cmd and command are PM2 aliases of script; script wins', () => {
      assert.equal(normalize({ cmd: 'hello.js' }).script, path.join(dir, 'hello.js'))
      assert.equal(normalize({ command: 'hello.js' }).script, path.join(dir, 'hello.js'))
      assert.equal(normalize({ script: 'app.py', cmd: 'hello.js' }).script, path.join(dir, 'app.py'))
    })
    test('a file whose name has a space is a file, not a command line', () => {
      fs.writeFileSync(path.join(dir, 'my app.js'), '\n')
      const config = normalize({ script: 'my app.js', name: 'mine' })
      assert.deepEqual([config.script, config.interpreter, config.args], [path.join(dir, 'my app.js'), null, []])
    })
    test('raw.cwd resolves against the cwd option and must exist', () => {
      assert.equal(normalize({ script: 'worker.js', cwd: 'sub' }).script, path.join(dir, 'sub', 'worker.js'))
      assertSupError(() => normalize({ script: 'hello.js', cwd: 'nowhere' }), 'SUP_ERR_CONFIG_CWD_NOT_FOUND', { cwd: path.join(dir, 'nowhere') })
      assertSupError(() => normalize({ script: 'hello.js', cwd: 'hello.js' }), 'SUP_ERR_CONFIG_CWD_NOT_FOUND')
    })
  })

  describe('a command line as the script (PM2 runs it in a shell)', () => {
    const shell = path.basename(normalize({ script: 'npm run serve' }).script)
    test('runs in bash, or sh where there is no bash', () => assert.ok(['bash', 'sh'].includes(shell), shell))
    /** @type {[Record<string, unknown>, string, string[]][]} */
    const cases = [
      [{ script: 'npm run serve' }, 'npm-run-serve', ['-c', 'npm run serve']],
      [{ script: "node -e 'setInterval(() => {}, 1000)'" }, 'node', ['-c', "node -e 'setInterval(() => {}, 1000)'"]],
      [{ script: '  python3 -m http.server 8000 ' }, 'python3', ['-c', 'python3 -m http.server 8000']],
      [{ script: '/usr/bin/env PORT=1 node x.js' }, 'env-PORT-1-node-x.js', ['-c', '/usr/bin/env PORT=1 node x.js']],
      [{ cmd: 'npm start', name: 'web' }, 'web', ['-c', 'npm start']],
      [{ script: 'npm run serve', args: '--port 3000' }, 'npm-run-serve', ['-c', 'npm run serve "$@"', 'npm-run-serve', '--port', '3000']],
      [{ script: 'npm run serve', interpreter: 'python3', node_args: '--inspect' }, 'npm-run-serve', ['-c', 'npm run serve']]
    ]
    for (const [raw, name, args] of cases) {
      test(`${JSON.stringify(raw)} -> ${name} ${JSON.stringify(args)}`, () => {
        const config = normalize(raw)
        assert.deepEqual({ name: config.name, args: config.args, interpreter: config.interpreter, interpreter_args: config.interpreter_args },
          { name, args, interpreter: 'none', interpreter_args: [] })
        assert.equal(path.basename(config.script), shell)
        assert.equal(validate(APP_CONFIG_SCHEMA, config, 'config'), null)
      })
    }
    test('instances run in fork mode: a shell cannot be a cluster worker', () => {
      const config = normalize({ script: 'npm start', instances: 2 })
      assert.deepEqual([config.exec_mode, config.instances], ['fork', 2])
    })
  })

  describe('autostart and pid_file', () => {
    /** @type {[unknown, boolean][]} */
    const autostart = [[undefined, true], [true, true], [false, false], ['false', false], ['true', true]]
    for (const [value, expected] of autostart) {
      test(`autostart ${JSON.stringify(value)} -> ${expected}`, () => assert.equal(normalize({ script: 'hello.js', autostart: value }).autostart, expected))
    }
    test('autostart that is not a boolean is rejected', () => {
      assertSupError(() => normalize({ script: 'hello.js', autostart: 'no' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'autostart' })
    })
    test('pid_file resolves against the app cwd; none by default', () => {
      assert.equal(normalize({ script: 'hello.js' }).pid_file, null)
      assert.equal(normalize({ script: 'hello.js', pid_file: 'run/hello.pid' }).pid_file, path.join(dir, 'run/hello.pid'))
      assert.equal(normalize({ script: 'hello.js', pid_file: '/tmp/x.pid' }).pid_file, '/tmp/x.pid')
    })
  })

  describe('args', () => {
    /** @type {[unknown, string[]][]} */
    const cases = [
      [undefined, []],
      ['', []],
      ['--port 3000', ['--port', '3000']],
      ['  a   b ', ['a', 'b']],
      ['--msg "hello world" \'it\'\'s\' --x=""', ['--msg', 'hello world', 'its', '--x=']],
      [['a b', 'c'], ['a b', 'c']]
    ]
    for (const [args, expected] of cases) {
      test(`${JSON.stringify(args)} -> ${JSON.stringify(expected)}`, () => assert.deepEqual(normalize({ script: 'hello.js', args }).args, expected))
    }
    test('an object is rejected', () => {
      assertSupError(() => normalize({ script: 'hello.js', args: { a: 1 } }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'args' })
    })
  })

  describe('interpreter', () => {
    /** @type {[Record<string, unknown>, string | null, string[]][]} */
    const cases = [
      [{ script: 'app.py' }, 'python3', []],
      [{ script: 'serve' }, 'python3', ['-u']],
      [{ script: 'binary' }, 'none', []],
      [{ script: 'hello.js', interpreter: 'node' }, null, []],
      [{ script: 'hello.js', interpreter: '/usr/local/bin/node' }, null, []],
      [{ script: 'binary', interpreter: 'none' }, 'none', []],
      [{ script: 'app.py', interpreter: 'python3.12', interpreter_args: '-X dev' }, 'python3.12', ['-X', 'dev']],
      [{ script: 'serve', interpreter: 'pypy3' }, 'pypy3', []],
      [{ script: 'hello.js', node_args: ['--inspect'] }, null, ['--inspect']]
    ]
    for (const [raw, interpreter, args] of cases) {
      test(`${JSON.stringify(raw)} -> ${interpreter} ${JSON.stringify(args)}`, () => {
        const config = normalize(raw)
        assert.equal(config.interpreter, interpreter)
        assert.deepEqual(config.interpreter_args, args)
      })
    }

    // A node named by path or version stays a node app (agent, cluster mode) on that node.
    /** @type {[Record<string, unknown>, string | null, string | null, string][]} */
    const runtimes = [
      [{ script: 'hello.js' }, null, null, 'fork'],
      [{ script: 'hello.js', interpreter: 'node', instances: 2 }, null, null, 'cluster'],
      [{ script: 'hello.js', interpreter: '/usr/local/bin/node', instances: 2 }, null, '/usr/local/bin/node', 'cluster'],
      [{ script: 'hello.js', interpreter: 'bin/node22' }, null, path.join(dir, 'bin', 'node22'), 'fork'],
      [{ script: 'hello.js', interpreter: 'node@22', instances: 2 }, null, 'node@22', 'cluster'],
      [{ script: 'hello.js', interpreter: 'node@lts/iron' }, null, 'node@lts/iron', 'fork'],
      [{ script: 'hello.js', exec_interpreter: 'nodejs' }, null, 'nodejs', 'fork'],
      [{ script: 'hello.js', interpreter: 'bun', instances: 2 }, 'bun', null, 'fork'],
      [{ script: 'hello.js', interpreter: 'deno' }, 'deno', null, 'fork']
    ]
    for (const [raw, interpreter, runtime, mode] of runtimes) {
      test(`${JSON.stringify(raw)} -> interpreter ${interpreter}, runtime ${runtime}, ${mode} mode`, () => {
        const config = normalize(raw)
        assert.deepEqual([config.interpreter, config.runtime, config.exec_mode], [interpreter, runtime, mode])
      })
    }
  })

  describe('exec_mode', () => {
    /** @type {[Record<string, unknown>, string, number][]} */
    const cases = [
      [{ script: 'hello.js' }, 'fork', 1],
      [{ script: 'hello.js', instances: 4 }, 'cluster', 4],
      [{ script: 'hello.js', instances: 1 }, 'cluster', 1],
      [{ script: 'hello.js', instances: 4, force_fork: true }, 'fork', 4],
      [{ script: 'hello.js', instances: 4, exec_mode: 'fork_mode' }, 'fork', 4],
      [{ script: 'hello.js', exec_mode: 'cluster' }, 'cluster', 1],
      [{ script: 'app.py', instances: 4 }, 'fork', 4],
      [{ script: 'app.py', instances: 2, exec_mode: 'cluster' }, 'fork', 2],
      [{ script: 'sh', instances: '-1' }, 'fork', 7]
    ]
    for (const [raw, mode, instances] of cases) {
      test(`${JSON.stringify(raw)} -> ${mode} x${instances}`, () => {
        const config = normalize(raw)
        assert.equal(config.exec_mode, mode)
        assert.equal(config.instances, instances)
      })
    }
    test('an unknown mode is rejected', () => {
      assertSupError(() => normalize({ script: 'hello.js', exec_mode: 'threads' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'exec_mode' })
    })
  })

  describe('env', () => {
    const raw = { script: 'hello.js', env: { A: '1', B: 2 }, env_production: { B: 'prod', C: true } }
    /** @type {[string | undefined, Record<string, string>][]} */
    const cases = [
      [undefined, { A: '1', B: '2' }],
      ['production', { A: '1', B: 'prod', C: 'true' }],
      ['staging', { A: '1', B: '2' }]
    ]
    for (const [envName, env] of cases) {
      test(`--env ${envName}`, () => assert.deepEqual(normalize(raw, { envName }).env, env))
    }
    test('env_<name> applies without a base env', () => {
      assert.deepEqual(normalize({ script: 'hello.js', env_dev: { X: 1 } }, { envName: 'dev' }).env, { X: '1' })
    })
    test('an env that is not an object is rejected', () => {
      assertSupError(() => normalize({ script: 'hello.js', env: 'A=1' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'env' })
      assertSupError(() => normalize({ script: 'hello.js', env_prod: [1] }, { envName: 'prod' }), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'env_prod' })
    })
  })

  describe('options with a wrong type name the option', () => {
    /** @type {[string, unknown, string?][]} */
    const cases = [
      ['instances', {}, 'SUP_ERR_CONFIG_INVALID_INSTANCES'],
      ['kill_timeout', 'soon'],
      ['listen_timeout', -1],
      ['max_memory_restart', 'big'],
      ['max_restarts', -1],
      ['max_restarts', 1.5],
      ['stop_exit_codes', [0, 256]],
      ['stop_exit_codes', 'ok'],
      ['wait_ready', 'yes'],
      ['autorestart', 1],
      ['log_type', 'xml'],
      ['out_file', 42],
      ['cron_restart', 5, 'SUP_ERR_CRON_INVALID_EXPRESSION'],
      ['cron_restart', '61 * * * *', 'SUP_ERR_CRON_INVALID_EXPRESSION'],
      ['cron_restart', 'every day', 'SUP_ERR_CRON_INVALID_EXPRESSION'],
      ['cron_restart', '* * * * * * *', 'SUP_ERR_CRON_INVALID_EXPRESSION'],
      ['watch', 5],
      ['watch', 'no-such-folder', 'SUP_ERR_WATCH_PATH_NOT_FOUND'],
      ['ignore_watch', 5],
      ['ignore_watch', [1]],
      ['watch_delay', 'soon'],
      ['log_max_size', '10 parsecs'],
      ['log_max_size', -1],
      ['log_retain', 1.5],
      ['log_retain', 100001],
      ['log_compress', 'maybe'],
      ['log_file', 5],
      ['log_date_format', 5],
      ['instance_var', {}],
      ['cwd', 5],
      ['interpreter', 5],
      ['interpreter_args', {}]
    ]
    for (const [option, value, code = 'SUP_ERR_CONFIG_INVALID_OPTION'] of cases) {
      test(`${option}: ${JSON.stringify(value)}`, () => {
        const details = code === 'SUP_ERR_CONFIG_INVALID_OPTION' ? { option } : {}
        assertSupError(() => normalize({ script: 'hello.js', [option]: value }), code, details)
      })
    }
    test('an entry that is not an object is rejected', () => {
      assertSupError(() => normalize(/** @type {any} */ ('hello.js')), 'SUP_ERR_CONFIG_INVALID_OPTION', { option: 'app' })
    })
  })

  describe('small options', () => {
    /** @type {[Record<string, unknown>, keyof AppConfig, unknown][]} */
    const cases = [
      [{ stop_exit_codes: 0 }, 'stop_exit_codes', [0]],
      [{ stop_exit_codes: '0,2' }, 'stop_exit_codes', [0, 2]],
      [{ watch: true }, 'watch', true],
      [{ watch: 'false' }, 'watch', false],
      [{ watch: 'sub' }, 'watch', true],
      [{ watch: 'sub' }, 'watch_paths', [path.join(dir, 'sub')]],
      [{ watch: 'sub, sub/src' }, 'watch_paths', [path.join(dir, 'sub'), path.join(dir, 'sub', 'src')]],
      [{ watch: true }, 'watch_paths', []],
      [{ watch: 'TRUE' }, 'watch', true],
      [{ watch: [] }, 'watch', false],
      [{ ignore_watch: 'logs *.tmp,dist' }, 'ignore_watch', ['logs', '*.tmp', 'dist']],
      [{ ignore_watch: ['a b'] }, 'ignore_watch', ['a b']],
      [{ watch_delay: '2s' }, 'watch_delay', 2000],
      [{ cron_restart: ' */5 * * * * * ' }, 'cron_restart', '*/5 * * * * *'],
      [{ cron_restart: '@hourly' }, 'cron_restart', '@hourly'],
      [{ merge_logs: 'true' }, 'merge_logs', true],
      [{ out: '/dev/null' }, 'out_file', '/dev/null'],
      [{ out_file: '/var/log/app.log' }, 'out_file', '/var/log/app.log'],
      [{ error: 'err.log' }, 'error_file', path.join(dir, 'err.log')],
      [{ max_memory_restart: 1048576 }, 'max_memory_restart', 1048576],
      [{ max_restarts: 0 }, 'max_restarts', 0],
      [{ cron: '*/5 * * * *' }, 'cron_restart', '*/5 * * * *'],
      [{ log_file: true }, 'log_file', true],
      [{ log_file: 'false' }, 'log_file', null],
      [{ log: 'all.log' }, 'log_file', path.join(dir, 'all.log')],
      [{ log_file: 'NULL' }, 'log_file', '/dev/null'],
      [{ disable_logs: true, out_file: 'out.log' }, 'out_file', '/dev/null'],
      [{ disable_logs: 'true' }, 'error_file', '/dev/null'],
      [{ disable_logs: true, log_file: true }, 'log_file', null],
      [{ disable_logs: false, out_file: 'out.log' }, 'out_file', path.join(dir, 'out.log')],
      [{ log_max_size: '10M' }, 'log_max_size', 10 * 1024 ** 2],
      [{ log_max_size: 0 }, 'log_max_size', 0],
      [{ log_max_size: '0' }, 'log_max_size', 0],
      [{ log_retain: '3' }, 'log_retain', 3],
      [{ log_retain: 0 }, 'log_retain', 0],
      [{ log_compress: 'true' }, 'log_compress', true],
      [{ log_compress: false }, 'log_compress', false],
      [{ log_date_format: 'YYYY-MM-DD HH:mm:ss Z' }, 'log_date_format', 'YYYY-MM-DD HH:mm:ss Z']
    ]
    for (const [raw, key, expected] of cases) {
      test(`${JSON.stringify(raw)} -> ${key} ${JSON.stringify(expected)}`, () => {
        assert.deepEqual(normalize({ script: 'hello.js', ...raw })[key], expected)
      })
    }
  })
})
