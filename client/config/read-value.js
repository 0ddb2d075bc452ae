// @ts-check
// How the CLI reads one value of an app entry, as users write it (PM2's forms and sup's:
// "5s", "200M", "true" from a flag); each input kind of the field table (ipc/app-fields.js)
// has its reader here. Every problem is a SUP_ERR_CONFIG_INVALID_OPTION naming the option
// and what to write instead.
import path from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { parseBytes } from '../../ipc/units.js'
import { ACCOUNT_NAME_PATTERN } from '../../ipc/app-fields.js'

const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const MAX_MS = 2 ** 31 - 1

/**
 * An entry's value for a field, under its name or the first of PM2's other names given.
 * @param {Record<string, unknown>} raw
 * @param {import('../../ipc/app-fields.js').AppField} field
 */
export function inputOf (raw, field) {
  for (const key of [field.key, ...field.aliases ?? []]) if (raw[key] != null) return raw[key]
  return undefined
}

/**
 * Read a field that the table gives an input kind (not 'custom'); absent or "" is its default.
 * @param {import('../../ipc/app-fields.js').AppField} field
 * @param {Record<string, unknown>} raw the entry
 * @param {string} cwd the app's, where paths resolve
 * @returns {unknown}
 */
export function readField (field, raw, cwd) {
  const value = inputOf(raw, field)
  if (value == null || value === '') return field.default
  const { key, schema } = field
  switch (field.input) {
    case 'string': return parseString(value, key)
    case 'boolean': return parseBoolean(value, key, false)
    case 'duration': return parseDuration(value, key)
    case 'count': return parseCount(value, key, /** @type {{ maximum: number }} */ (numberSchema(schema)).maximum)
    case 'bytes': return parseBytes(value, key, { allowZero: /** @type {{ minimum: number }} */ (numberSchema(schema)).minimum === 0 })
    case 'cores': return parseCores(value, key)
    case 'path': return resolvePath(value, key, cwd)
    case 'enum': return parseChoice(value, key, /** @type {{ enum: readonly string[] }} */ (schema).enum)
    case 'user': return parseAccount(value, key)
  }
  throw new Error(`${key} is built by client/config/normalize.js, not read by its kind`)
}

/**
 * The integer branch of a field's schema, where its bounds are.
 * @param {import('../../ipc/schema.js').Schema | undefined} schema
 */
function numberSchema (schema) {
  return schema && 'anyOf' in schema ? schema.anyOf.find((s) => 'type' in s && s.type === 'integer') : schema
}

/**
 * @param {unknown} value
 * @param {string} option
 * @returns {string | null}
 */
export function parseString (value, option) {
  if (value == null || value === '') return null
  if (typeof value !== 'string') throwInvalid(option, value, 'must be a string')
  return value
}

/**
 * A user or group (uid, gid): a name, or a number (digits from a flag are a number).
 * @param {unknown} value
 * @param {string} option
 * @returns {string | number}
 */
export function parseAccount (value, option) {
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 2 ** 32 - 2) return value
  if (typeof value === 'string' && /^\d+$/.test(value) && Number(value) <= 2 ** 32 - 2) return Number(value)
  if (typeof value === 'string' && ACCOUNT_NAME_PATTERN.test(value)) return value
  throwInvalid(option, value, 'must be a user or group name, or its number')
}

/**
 * @param {unknown} value true/false, or "true"/"false" from the CLI
 * @param {string} option
 * @param {boolean} fallback when absent
 */
export function parseBoolean (value, option, fallback) {
  if (value == null || value === '') return fallback
  if (typeof value === 'boolean') return value
  const text = typeof value === 'string' ? value.trim().toLowerCase() : ''
  if (text !== 'true' && text !== 'false') throwInvalid(option, value, 'use true or false')
  return text === 'true'
}

/**
 * @param {unknown} value a whole number, or its digits as a string
 * @param {string} option
 * @param {number} max
 */
export function parseCount (value, option, max) {
  const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  if (!Number.isInteger(count) || /** @type {number} */ (count) < 0) throwInvalid(option, value, 'must be a whole number, 0 or more')
  if (/** @type {number} */ (count) > max) throwInvalid(option, value, `must be at most ${max}`)
  return /** @type {number} */ (count)
}

/** The fewest and most cores a CPU limit may name (the kernel's cpu.max takes 1 ms of 100 ms). */
const MIN_CORES = 0.01
const MAX_CORES = 1024

/**
 * Read a CPU limit in cores: 1.5 or "1.5", "150%" (of one core), Kubernetes' "1500m".
 * @param {unknown} value
 * @param {string} option named in the error
 * @returns {number} cores
 */
export function parseCores (value, option) {
  const text = typeof value === 'number' ? String(value) : typeof value === 'string' ? value.trim() : ''
  const match = /^(\d+(?:\.\d+)?|\.\d+)(%|m)?$/.exec(text)
  const cores = match ? Number(match[1]) / (match[2] === '%' ? 100 : match[2] === 'm' ? 1000 : 1) : NaN
  if (!(cores >= MIN_CORES && cores <= MAX_CORES)) throwInvalid(option, value, `must be a number of cores from ${MIN_CORES} to ${MAX_CORES}, e.g. 1.5, "50%" or "500m"`)
  return cores
}

/**
 * Read a duration: ms as a number, or "1500", "1500ms", "5s", "2m", "1h".
 * @param {unknown} value
 * @param {string} option named in the error
 * @returns {number} integer ms
 */
export function parseDuration (value, option) {
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/i.exec(value.trim()) : null
  const ms = typeof value === 'number'
    ? value
    : match ? Number(match[1]) * DURATION_UNITS[/** @type {keyof typeof DURATION_UNITS} */ ((match[2] ?? 'ms').toLowerCase())] : NaN
  if (!Number.isFinite(ms) || ms < 0) throwInvalid(option, value, 'use milliseconds, or a number with ms, s, m or h (e.g. 5s)')
  if (ms > MAX_MS) throwInvalid(option, value, `must be at most ${MAX_MS} ms (about 24 days)`)
  return Math.round(ms)
}

/**
 * A file path relative to the app's cwd; "/dev/null" or NULL (PM2's) for none.
 * @param {unknown} value
 * @param {string} option
 * @param {string} cwd
 */
export function resolvePath (value, option, cwd) {
  const file = parseString(value, option)
  if (file === null) return null
  return file === '/dev/null' || file === 'NULL' ? '/dev/null' : path.resolve(cwd, file)
}

/**
 * @param {unknown} value
 * @param {string} option
 * @param {readonly string[]} choices
 */
function parseChoice (value, option, choices) {
  if (typeof value !== 'string' || !choices.includes(value)) throwInvalid(option, value, `use ${choices.map((c) => `"${c}"`).join(' or ')}`)
  return value
}

/**
 * Read args given as a list or as one string split on spaces, honouring '...' and "...".
 * @param {unknown} value
 * @param {string} option
 * @returns {string[]}
 */
export function parseArgList (value, option) {
  if (value == null) return []
  if (typeof value === 'string') return splitArgs(value)
  if (!Array.isArray(value) || !value.every((arg) => ['string', 'number', 'boolean'].includes(typeof arg))) {
    throwInvalid(option, value, 'use a string or a list of strings')
  }
  return value.map(String)
}

/** @param {string} text */
function splitArgs (text) {
  /** @type {string[]} */
  const args = []
  /** @type {string | null} */
  let current = null
  let quote = ''
  for (const ch of text) {
    if (quote) {
      if (ch === quote) quote = ''
      else current += ch
    } else if (ch === '"' || ch === "'") {
      quote = ch
      current ??= ''
    } else if (/\s/.test(ch)) {
      if (current !== null) args.push(current)
      current = null
    } else {
      current = (current ?? '') + ch
    }
  }
  if (current !== null) args.push(current)
  return args
}

/**
 * @param {string} option
 * @param {unknown} value
 * @param {string} reason what to write instead
 * @returns {never}
 */
export function throwInvalid (option, value, reason) {
  throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option, value: describeValue(value), reason })
}

/** @param {unknown} value */
export function describeValue (value) {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
}
