// @ts-check
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { describe, test } from 'node:test'
import { ERRORS, SupError, toSupError } from '../../../ipc/errors.js'

const DOCS = new URL('../../../docs/errors.md', import.meta.url)

/**
 * The {placeholders} of a template. A brace followed by a space is literal text
 * (SUP_ERR_CONFIG_FILE_NO_APPS shows `{ apps: [ { name, script } ] }`), so it is not one.
 * @param {string} template
 */
const placeholdersOf = (template) => [...template.matchAll(/\{(?!\s)([^{}]*)\}/g)].map((m) => m[1])

describe('SupError', () => {
  /** @type {Array<[string, Record<string, unknown>, string]>} */
  const rows = [
    ['SUP_ERR_APP_NOT_FOUND', { target: 'api' }, 'app "api" not found (sup ls lists apps)'],
    ['SUP_ERR_APP_ALREADY_EXISTS', { name: 'api' }, 'app "api" already exists (sup restart api, or start it with another --name)'],
    ['SUP_ERR_IPC_TIMEOUT', { method: 'app.list', ms: 5000 }, 'the daemon did not answer app.list within 5000 ms'],
    ['SUP_ERR_CONFIG_FILE_SYNTAX', { file: 'a.json', where: ':3', reason: 'bad' }, 'config file a.json:3 could not be read: bad'],
    ['SUP_ERR_CONFIG_FILE_SYNTAX', { file: 'a.json', where: '', reason: 'bad' }, 'config file a.json could not be read: bad'],
    ['SUP_ERR_APP_NOT_FOUND', {}, 'app "{target}" not found (sup ls lists apps)'],
    ['SUP_ERR_CLI_USAGE', { reason: 'say {target}', target: 'x' }, 'say {target}']
  ]
  for (const [code, details, message] of rows) {
    test(`${code} ${JSON.stringify(details)} -> ${message}`, () => {
      const err = new SupError(code, details)
      assert.equal(err.message, message)
      assert.equal(err.code, code)
      assert.equal(err.details, details)
    })
  }

  test('is an Error named SupError with its cause', () => {
    const cause = new Error('ENOENT')
    const err = new SupError('SUP_ERR_CONFIG_FILE_NOT_FOUND', { file: 'x.json' }, { cause })
    assert.ok(err instanceof Error)
    assert.equal(err.name, 'SupError')
    assert.equal(err.cause, cause)
    assert.match(String(err.stack), /SupError: config file "x.json" not found/)
  })

  test('details default to an empty object', () => {
    const err = new SupError('SUP_ERR_DAEMON_SHUTTING_DOWN')
    assert.deepEqual(err.details, {})
    assert.equal(err.message, ERRORS.SUP_ERR_DAEMON_SHUTTING_DOWN.message)
  })

  test('an explicit message wins over the template', () => {
    assert.equal(new SupError('SUP_ERR_APP_NOT_FOUND', { target: 'x' }, { message: 'from the wire' }).message, 'from the wire')
  })

  test('an unknown code keeps the code and uses the internal template', () => {
    const err = new SupError('SUP_ERR_NEW_THING', { reason: 'newer daemon' })
    assert.equal(err.code, 'SUP_ERR_NEW_THING')
    assert.match(err.message, /^internal error: newer daemon/)
  })

  test('a code that names a property every object has is unknown too, not a template', () => {
    for (const code of ['toString', 'constructor', '__proto__', 'hasOwnProperty']) {
      const err = new SupError(code, { reason: 'odd code' })
      assert.equal(err.code, code)
      assert.match(err.message, /^internal error: odd code/)
    }
  })

  test('the registry cannot be changed at run time', () => {
    assert.ok(Object.isFrozen(ERRORS))
  })

  test('toJSON is the wire shape', () => {
    const err = new SupError('SUP_ERR_APP_NOT_FOUND', { target: 'api' }, { cause: new Error('x') })
    assert.deepEqual(err.toJSON(), { code: 'SUP_ERR_APP_NOT_FOUND', message: 'app "api" not found (sup ls lists apps)', details: { target: 'api' } })
  })

  describe('fromJSON(JSON.parse(JSON.stringify(err))) round trip', () => {
    const errors = [
      new SupError('SUP_ERR_APP_NOT_FOUND', { target: 'api' }),
      new SupError('SUP_ERR_IPC_VERSION_MISMATCH', { daemon: 1, client: 2 }),
      new SupError('SUP_ERR_DAEMON_SHUTTING_DOWN'),
      new SupError('SUP_ERR_CLI_USAGE', { reason: 'x', nested: { list: [1, 2] } })
    ]
    for (const err of errors) {
      test(err.code, () => {
        const back = SupError.fromJSON(JSON.parse(JSON.stringify(err)))
        assert.ok(back instanceof SupError)
        assert.deepEqual(back.toJSON(), err.toJSON())
      })
    }

    test('a message from the wire is kept even when the template would differ', () => {
      const back = SupError.fromJSON({ code: 'SUP_ERR_APP_NOT_FOUND', message: 'app "x" not found (old daemon wording)', details: { target: 'x' } })
      assert.equal(back.message, 'app "x" not found (old daemon wording)')
    })

    test('an empty wire error becomes SUP_ERR_INTERNAL_ERROR', () => {
      const back = SupError.fromJSON({})
      assert.equal(back.code, 'SUP_ERR_INTERNAL_ERROR')
      assert.equal(back.message, 'unknown error')
      assert.deepEqual(back.details, {})
    })
  })
})

describe('toSupError', () => {
  test('passes a SupError through', () => {
    const err = new SupError('SUP_ERR_APP_NOT_FOUND', { target: 'api' })
    assert.equal(toSupError(err), err)
  })

  const thrown = [
    ['an Error', new TypeError('x is not a function'), 'x is not a function'],
    ['a string', 'boom', 'boom'],
    ['a number', 42, '42'],
    ['undefined', undefined, 'undefined']
  ]
  for (const [name, value, reason] of thrown) {
    test(`wraps ${name} as SUP_ERR_INTERNAL_ERROR with the original as the cause`, () => {
      const err = toSupError(value)
      assert.ok(err instanceof SupError)
      assert.equal(err.code, 'SUP_ERR_INTERNAL_ERROR')
      assert.equal(err.details.reason, reason)
      assert.equal(err.cause, value)
      assert.match(err.message, new RegExp(`^internal error: ${reason}`))
    })
  }
})

describe('the registry', () => {
  for (const code of Object.keys(ERRORS)) {
    test(`${code} is SUP_ERR_<AREA>_<PROBLEM>`, () => assert.match(code, /^SUP_ERR_[A-Z]+_[A-Z_]+$/))
  }

  for (const [code, { message }] of Object.entries(ERRORS)) {
    test(`${code}: placeholders are plain words and all get filled`, () => {
      const names = placeholdersOf(message)
      for (const name of names) assert.match(name, /^\w+$/, `{${name}} in ${code}`)
      const filled = new SupError(code, Object.fromEntries(names.map((n) => [n, `<${n}>`]))).message
      assert.doesNotMatch(filled, /\{\w+\}/, filled)
    })
  }
})

test('docs/errors.md lists exactly the codes in ERRORS', async () => {
  const text = await readFile(DOCS, 'utf8')
  const documented = new Set(text.match(/SUP_ERR_[A-Z_]+/g) ?? [])
  const registered = new Set(Object.keys(ERRORS))
  const undocumented = [...registered].filter((code) => !documented.has(code))
  const gone = [...documented].filter((code) => !registered.has(code))
  assert.deepEqual(
    { undocumented, gone },
    { undocumented: [], gone: [] },
    `codes missing from docs/errors.md: ${undocumented.join(', ') || 'none'}; documented but not in ipc/errors.js: ${gone.join(', ') || 'none'}`
  )
})
