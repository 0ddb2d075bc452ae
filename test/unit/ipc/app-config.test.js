// @ts-check
// The AppConfig typedef is written by hand (tsc reads JSDoc, not tables): these tests keep it
// in step with the field table it must describe, key by key and type by type.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { APP_CONFIG_SCHEMA, APP_DEFAULTS, APP_FIXED_KEYS } from '../../../ipc/app-config.js'
import { APP_FIELDS, PROBE_SCHEMA, STORED_FIELDS } from '../../../ipc/app-fields.js'

const SOURCE = readFileSync(new URL('../../../ipc/app-config.js', import.meta.url), 'utf8')

/**
 * The `@property {type} key` lines of a typedef in ipc/app-config.js.
 * @param {string} name
 * @returns {Array<[string, string]>} [key, type]
 */
function typedefProperties (name) {
  const block = new RegExp(`@typedef \\{object\\} ${name}\\b[^\\n]*\\n([\\s\\S]*?)\\*/`).exec(SOURCE)
  assert.ok(block, `ipc/app-config.js has no typedef ${name}`)
  return [...block[1].matchAll(/@property \{(.+?)\} (\w+)/g)].map((m) => [m[2], m[1]])
}

/**
 * The TypeScript type a schema accepts, as the typedef spells it.
 * @param {import('../../../ipc/schema.js').Schema} schema
 * @returns {string}
 */
function typeOf (schema) {
  if (schema === PROBE_SCHEMA) return 'ProbeConfig'
  if ('anyOf' in schema) return schema.anyOf.map(typeOf).join(' | ')
  switch (schema.type) {
    case 'string': return schema.enum ? schema.enum.map((v) => `'${v}'`).join(' | ') : 'string'
    case 'integer': case 'number': return 'number'
    case 'array': return `${typeOf(schema.items)}[]`
    case 'record': return `Record<string, ${typeOf(schema.values)}>`
    default: return schema.type
  }
}

test('AppConfig has the stored fields of the table, in its order, with the types their schemas accept', () => {
  assert.deepEqual(typedefProperties('AppConfig'), STORED_FIELDS.map((f) => [f.key, typeOf(/** @type {any} */ (f.schema))]))
})

test('ProbeConfig has the properties of the probe schema, with their types', () => {
  const { properties } = /** @type {{ properties: Record<string, any> }} */ (PROBE_SCHEMA)
  assert.deepEqual(typedefProperties('ProbeConfig'), Object.entries(properties).map(([key, schema]) => [key, typeOf(schema)]))
})

test('the schema requires every stored key and knows no other', () => {
  const { properties, required } = /** @type {{ properties: object, required: string[] }} */ (APP_CONFIG_SCHEMA)
  assert.deepEqual(Object.keys(properties), STORED_FIELDS.map((f) => f.key))
  assert.deepEqual(required, Object.keys(properties))
})

test('the defaults are those of the table: every stored key but name, script and cwd', () => {
  assert.deepEqual(Object.keys(APP_DEFAULTS), STORED_FIELDS.map((f) => f.key).filter((key) => !['name', 'script', 'cwd'].includes(key)))
  assert.equal(APP_DEFAULTS.kill_timeout, 5000)
  assert.ok(Object.isFrozen(APP_DEFAULTS))
})

test('keys read but not kept (force_fork, disable_logs) have a default and are not in the schema', () => {
  const readOnly = APP_FIELDS.filter((f) => f.schema === undefined)
  assert.deepEqual(readOnly.map((f) => f.key), ['force_fork', 'disable_logs'])
  for (const field of readOnly) assert.ok('default' in field, field.key)
})

test('what a restart with flags may not change: one list for the CLI and the daemon', () => {
  assert.deepEqual([...APP_FIXED_KEYS].sort(), ['balance', 'exec_mode', 'force_fork', 'instances', 'listen', 'name', 'namespace', 'script', 'source', 'sticky'])
})

test('each key and PM2 alias names one field', () => {
  const names = APP_FIELDS.flatMap((f) => [f.key, ...f.aliases ?? []])
  assert.deepEqual(names.filter((name, i) => names.indexOf(name) !== i), [])
})
