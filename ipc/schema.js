// @ts-check
// A deliberately small JSON-schema-like validator: the protocol needs objects, arrays,
// strings, numbers and unions, and a dependency (ajv) would cost more CLI start-up time
// than the whole protocol does.

/**
 * @typedef {{ type: 'string', enum?: readonly string[], pattern?: RegExp, maxLength?: number, minLength?: number }
 *   | { type: 'integer' | 'number', minimum?: number, maximum?: number }
 *   | { type: 'boolean' } | { type: 'null' } | { type: 'any' }
 *   | { type: 'array', items: Schema, maxItems?: number, minItems?: number }
 *   | { type: 'object', properties: Record<string, Schema>, required?: readonly string[], additional?: boolean }
 *   | { type: 'record', values: Schema, keys?: Extract<Schema, { type: 'string' }> }
 *   | { anyOf: readonly Schema[] }} Schema
 */

/**
 * Check `value` against `schema`.
 * @param {Schema} schema
 * @param {unknown} value
 * @param {string} [path] where we are, for the message
 * @returns {string | null} what is wrong, or null when the value fits
 */
export function validate (schema, value, path = 'params') {
  if ('anyOf' in schema) {
    const problems = schema.anyOf.map((s) => validate(s, value, path))
    if (problems.includes(null)) return null
    // The branch of the value's own type says what is wrong with it ("contains a NUL byte"),
    // where another branch's "must be null" would only mislead.
    const typeMismatch = (/** @type {string | null} */ p) => / must be (a |an )?(string|null|integer|number|boolean|object|array)$/.test(String(p))
    return /** @type {string} */ (problems.find((p) => !typeMismatch(p)) ?? problems[problems.length - 1])
  }
  switch (schema.type) {
    case 'any': return null
    case 'null': return value === null ? null : `${path} must be null`
    case 'boolean': return typeof value === 'boolean' ? null : `${path} must be a boolean`
    case 'string': return checkString(schema, value, path)
    case 'integer':
    case 'number': return checkNumber(schema, value, path)
    case 'array': return checkArray(schema, value, path)
    case 'object': return checkObject(schema, value, path)
    case 'record': return checkRecord(schema, value, path)
  }
}

/**
 * @param {Extract<Schema, { type: 'string' }>} schema
 * @param {unknown} value
 * @param {string} path
 */
function checkString (schema, value, path) {
  if (typeof value !== 'string') return `${path} must be a string`
  // No file name, argument or environment variable can hold one: spawn() would throw on it.
  if (value.includes('\0')) return `${path} contains a NUL byte`
  if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.join(', ')}`
  if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${path} is longer than ${schema.maxLength}`
  if (schema.minLength !== undefined && value.length < schema.minLength) return `${path} is shorter than ${schema.minLength}`
  if (schema.pattern && !schema.pattern.test(value)) return `${path} has an invalid format`
  return null
}

/**
 * @param {Extract<Schema, { type: 'integer' | 'number' }>} schema
 * @param {unknown} value
 * @param {string} path
 */
function checkNumber (schema, value, path) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return `${path} must be a number`
  if (schema.type === 'integer' && !Number.isInteger(value)) return `${path} must be an integer`
  if (schema.minimum !== undefined && value < schema.minimum) return `${path} must be >= ${schema.minimum}`
  if (schema.maximum !== undefined && value > schema.maximum) return `${path} must be <= ${schema.maximum}`
  return null
}

/**
 * @param {Extract<Schema, { type: 'array' }>} schema
 * @param {unknown} value
 * @param {string} path
 */
function checkArray (schema, value, path) {
  if (!Array.isArray(value)) return `${path} must be an array`
  if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${path} has more than ${schema.maxItems} items`
  if (schema.minItems !== undefined && value.length < schema.minItems) return `${path} needs at least ${schema.minItems} item(s)`
  for (let i = 0; i < value.length; i++) {
    const problem = validate(schema.items, value[i], `${path}[${i}]`)
    if (problem) return problem
  }
  return null
}

/**
 * @param {Extract<Schema, { type: 'object' }>} schema
 * @param {unknown} value
 * @param {string} path
 */
function checkObject (schema, value, path) {
  if (!isPlainObject(value)) return `${path} must be an object`
  const obj = /** @type {Record<string, unknown>} */ (value)
  for (const key of schema.required ?? []) {
    if (obj[key] === undefined) return `${path}.${key} is required`
  }
  for (const [key, v] of Object.entries(obj)) {
    // hasOwn: a key like "constructor" must not find Object.prototype's.
    const sub = Object.hasOwn(schema.properties, key) ? schema.properties[key] : undefined
    if (!sub) {
      if (schema.additional) continue
      return `${path}.${key} is not a known field`
    }
    if (v === undefined) continue
    const problem = validate(sub, v, `${path}.${key}`)
    if (problem) return problem
  }
  return null
}

/**
 * @param {Extract<Schema, { type: 'record' }>} schema
 * @param {unknown} value
 * @param {string} path
 */
function checkRecord (schema, value, path) {
  if (!isPlainObject(value)) return `${path} must be an object`
  for (const [key, v] of Object.entries(/** @type {Record<string, unknown>} */ (value))) {
    const problem = (schema.keys && checkString(schema.keys, key, `${path} key ${JSON.stringify(key)}`)) || validate(schema.values, v, `${path}.${key}`)
    if (problem) return problem
  }
  return null
}

/** @param {unknown} value */
function isPlainObject (value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
