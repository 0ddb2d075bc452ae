// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { validate } from '../../../ipc/schema.js'

/** @typedef {import('../../../ipc/schema.js').Schema} Schema */

const P = 'p'

/** @type {Record<string, Array<[Schema, unknown, string | null]>>} [schema, value, expected message or null] */
const cases = {
  any: [
    [{ type: 'any' }, undefined, null],
    [{ type: 'any' }, { deep: [1, 'x'] }, null]
  ],
  null: [
    [{ type: 'null' }, null, null],
    [{ type: 'null' }, undefined, 'p must be null'],
    [{ type: 'null' }, 0, 'p must be null']
  ],
  boolean: [
    [{ type: 'boolean' }, true, null],
    [{ type: 'boolean' }, false, null],
    [{ type: 'boolean' }, 'true', 'p must be a boolean'],
    [{ type: 'boolean' }, 0, 'p must be a boolean']
  ],
  string: [
    [{ type: 'string' }, '', null],
    [{ type: 'string' }, 1, 'p must be a string'],
    [{ type: 'string' }, null, 'p must be a string'],
    [{ type: 'string', enum: ['a', 'b'] }, 'b', null],
    [{ type: 'string', enum: ['a', 'b'] }, 'c', 'p must be one of a, b'],
    [{ type: 'string', pattern: /^[a-z]+$/ }, 'abc', null],
    [{ type: 'string', pattern: /^[a-z]+$/ }, 'ab1', 'p has an invalid format'],
    [{ type: 'string', maxLength: 3 }, 'abc', null],
    [{ type: 'string', maxLength: 3 }, 'abcd', 'p is longer than 3'],
    [{ type: 'string', minLength: 1 }, 'a', null],
    [{ type: 'string', minLength: 1 }, '', 'p is shorter than 1']
  ],
  integer: [
    [{ type: 'integer' }, 0, null],
    [{ type: 'integer' }, -7, null],
    [{ type: 'integer' }, 1.5, 'p must be an integer'],
    [{ type: 'integer' }, '1', 'p must be a number'],
    [{ type: 'integer' }, NaN, 'p must be a number'],
    [{ type: 'integer' }, Infinity, 'p must be a number'],
    [{ type: 'integer', minimum: 0 }, 0, null],
    [{ type: 'integer', minimum: 0 }, -1, 'p must be >= 0'],
    [{ type: 'integer', maximum: 10 }, 10, null],
    [{ type: 'integer', maximum: 10 }, 11, 'p must be <= 10']
  ],
  number: [
    [{ type: 'number' }, 1.5, null],
    [{ type: 'number' }, -Infinity, 'p must be a number'],
    [{ type: 'number' }, null, 'p must be a number'],
    [{ type: 'number', minimum: 0.5 }, 0.4, 'p must be >= 0.5'],
    [{ type: 'number', maximum: 0.5 }, 0.6, 'p must be <= 0.5']
  ],
  array: [
    [{ type: 'array', items: { type: 'integer' } }, [], null],
    [{ type: 'array', items: { type: 'integer' } }, [1, 2], null],
    [{ type: 'array', items: { type: 'integer' } }, { 0: 1, length: 1 }, 'p must be an array'],
    [{ type: 'array', items: { type: 'integer' } }, 'ab', 'p must be an array'],
    [{ type: 'array', items: { type: 'integer' } }, [1, 'x', 'y'], 'p[1] must be a number'],
    [{ type: 'array', items: { type: 'integer' }, minItems: 1 }, [], 'p needs at least 1 item(s)'],
    [{ type: 'array', items: { type: 'integer' }, maxItems: 2 }, [1, 2], null],
    [{ type: 'array', items: { type: 'integer' }, maxItems: 2 }, [1, 2, 3], 'p has more than 2 items']
  ],
  object: [
    [{ type: 'object', properties: {} }, {}, null],
    [{ type: 'object', properties: {} }, null, 'p must be an object'],
    [{ type: 'object', properties: {} }, [], 'p must be an object'],
    [{ type: 'object', properties: {} }, 'x', 'p must be an object'],
    [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { a: 1 }, null],
    [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, {}, 'p.a is required'],
    [{ type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] }, { a: undefined }, 'p.a is required'],
    [{ type: 'object', properties: { a: { type: 'integer' } } }, {}, null],
    [{ type: 'object', properties: { a: { type: 'integer' } } }, { a: undefined }, null],
    [{ type: 'object', properties: { a: { type: 'integer' } } }, { a: 'x' }, 'p.a must be a number'],
    [{ type: 'object', properties: { a: { type: 'integer' } } }, { b: 1 }, 'p.b is not a known field'],
    [{ type: 'object', properties: { a: { type: 'integer' } }, additional: true }, { b: 1 }, null],
    [{ type: 'object', properties: { a: { type: 'integer' } }, additional: true }, { a: 'x', b: 1 }, 'p.a must be a number'],
    [{ type: 'object', properties: { a: { type: 'object', properties: { b: { type: 'boolean' } } } } }, { a: { b: 1 } }, 'p.a.b must be a boolean'],
    [{ type: 'object', properties: { a: { type: 'object', properties: {} } } }, { a: { c: 1 } }, 'p.a.c is not a known field']
  ],
  record: [
    [{ type: 'record', values: { type: 'string' } }, {}, null],
    [{ type: 'record', values: { type: 'string' } }, { ANY_KEY: 'v', other: '' }, null],
    [{ type: 'record', values: { type: 'string' } }, { PORT: 3000 }, 'p.PORT must be a string'],
    [{ type: 'record', values: { type: 'string' } }, null, 'p must be an object'],
    [{ type: 'record', values: { type: 'string' } }, ['a'], 'p must be an object']
  ],
  nul: [
    [{ type: 'string' }, 'a\0b', 'p contains a NUL byte'],
    [{ type: 'record', values: { type: 'string' } }, { k: '\0' }, 'p.k contains a NUL byte'],
    [{ type: 'record', values: { type: 'string' }, keys: { type: 'string', pattern: /^[^=]+$/ } }, { 'a=b': 'x' }, 'p key "a=b" has an invalid format'],
    [{ type: 'record', values: { type: 'string' }, keys: { type: 'string', pattern: /^[^=]+$/ } }, { ab: 'x' }, null]
  ],
  anyOf: [
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'x', null],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, null, null],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 1, 'p must be null'],
    // The value's own branch speaks: what is wrong with this integer, not "must be null".
    [{ anyOf: [{ type: 'integer', minimum: 1 }, { type: 'null' }] }, 0, 'p must be >= 1'],
    [{ type: 'object', properties: { t: { anyOf: [{ type: 'string', minLength: 1 }, { type: 'null' }] } } }, { t: '' }, 'p.t is shorter than 1'],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }] }, 'a\0b', 'p contains a NUL byte']
  ]
}

describe('validate', () => {
  for (const [kind, rows] of Object.entries(cases)) {
    describe(kind, () => {
      for (const [schema, value, expected] of rows) {
        const shown = value === undefined ? 'undefined' : Number.isNaN(value) || value === Infinity || value === -Infinity ? String(value) : JSON.stringify(value)
        test(`${JSON.stringify(schema, (k, v) => v instanceof RegExp ? String(v) : v)} ${shown} -> ${expected ?? 'ok'}`, () => {
          assert.equal(validate(schema, value, P), expected)
        })
      }
    })
  }

  test('the path defaults to "params"', () => {
    assert.equal(validate({ type: 'object', properties: {}, required: ['x'] }, {}), 'params.x is required')
  })

  describe('the message names the path of the offending value', () => {
    /** @type {Schema} */
    const schema = {
      type: 'object',
      required: ['apps'],
      properties: {
        apps: {
          type: 'array',
          items: {
            type: 'object',
            required: ['name'],
            properties: {
              name: { type: 'string', pattern: /^[a-z]+$/ },
              env: { type: 'record', values: { type: 'string' } },
              ports: { type: 'array', items: { type: 'integer' } }
            }
          }
        }
      }
    }
    /** @type {Array<[unknown, string]>} */
    const rows = [
      [{ apps: [{ name: 'ok' }, { name: 'Not Ok' }] }, 'params.apps[1].name has an invalid format'],
      [{ apps: [{ name: 1 }] }, 'params.apps[0].name must be a string'],
      [{ apps: [{}] }, 'params.apps[0].name is required'],
      [{ apps: [{ name: 'a', env: { HOME: 1 } }] }, 'params.apps[0].env.HOME must be a string'],
      [{ apps: [{ name: 'a', ports: [80, 'x'] }] }, 'params.apps[0].ports[1] must be a number'],
      [{ apps: [{ name: 'a', nme: 'typo' }] }, 'params.apps[0].nme is not a known field']
    ]
    for (const [value, expected] of rows) {
      test(expected, () => assert.equal(validate(schema, value), expected))
    }
  })

  test('stops at the first problem', () => {
    const schema = /** @type {Schema} */ ({ type: 'array', items: { type: 'integer' } })
    assert.equal(validate(schema, ['a', 'b'], 'xs'), 'xs[0] must be a number')
  })
})

test('keys named like Object.prototype members are unknown fields, not schemas', () => {
  for (const key of ['constructor', 'toString', 'hasOwnProperty', '__proto__']) {
    const value = JSON.parse(`{"${key}": 1}`)
    assert.equal(validate({ type: 'object', properties: {} }, value), `params.${key} is not a known field`)
  }
})
