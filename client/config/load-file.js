// @ts-check
// Reads an ecosystem file (.js/.cjs/.mjs, .json, .yml/.yaml) into raw app entries.
// A broken file is reported with its path and line, since that is what the user must fix.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { SupError } from '../../ipc/errors.js'
import { commandName, isCommandString, scriptOf } from './command.js'

/**
 * Whether a start target names a config file rather than a script.
 * @param {string} file
 * @returns {boolean}
 */
export function isConfigFile (file) {
  const base = path.basename(file)
  return /\.(json|ya?ml)$/i.test(base) || /\.config\.[cm]?js$/.test(base) || /^ecosystem.*\.[cm]?js$/.test(base)
}

/**
 * Load a config file and return its raw app entries (not yet normalised).
 * @param {string} file
 * @param {string} cwd what a relative `file` is relative to
 * @param {{ envName?: string }} [options] the --env name: its `deploy.<name>.env` goes under each app's `env`
 * @returns {Promise<{ file: string, apps: Record<string, unknown>[] }>}
 */
export async function loadConfigFile (file, cwd, { envName } = {}) {
  const abs = path.resolve(cwd, file)
  const stat = fs.statSync(abs, { throwIfNoEntry: false })
  if (!stat?.isFile()) throw new SupError('SUP_ERR_CONFIG_FILE_NOT_FOUND', { file: abs })
  checkSize(stat.size, abs)
  const ext = path.extname(abs).toLowerCase()
  const exported = ext === '.json'
    ? await readJson(abs)
    : ext === '.yml' || ext === '.yaml' ? await readYaml(abs) : await importJs(abs)
  return { file: abs, apps: appsOf(exported, abs, envName) }
}

/** Far above a config of a thousand apps (~1 MiB); a 1 GB file cost 1.1 GB before a V8 error. */
export const MAX_CONFIG_BYTES = 16 * 1024 * 1024

/** Deeper than any config (apps[0].env_production.X is 3); 100k deep overflowed the stack. */
export const MAX_CONFIG_DEPTH = 64

/**
 * @param {number} size bytes
 * @param {string} file
 */
function checkSize (size, file) {
  if (size > MAX_CONFIG_BYTES) throw new SupError('SUP_ERR_CONFIG_FILE_TOO_LARGE', { file, size, limit: MAX_CONFIG_BYTES })
}

/**
 * Refuse a value nested deeper than MAX_CONFIG_DEPTH before any recursive code (normalising,
 * JSON, the schema) meets it. A loop, not recursion; an object met twice is walked once.
 * @param {unknown} value
 * @param {string} file
 */
function checkDepth (value, file) {
  /** @type {Array<[unknown, string, number]>} */
  const stack = [[value, '', 0]]
  const seen = new Set()
  while (stack.length > 0) {
    const [node, where, depth] = /** @type {[unknown, string, number]} */ (stack.pop())
    if (node === null || typeof node !== 'object' || seen.has(node)) continue
    seen.add(node)
    if (depth >= MAX_CONFIG_DEPTH) {
      throw new SupError('SUP_ERR_CONFIG_FILE_SYNTAX', { file, where: '', reason: `${where.replace(/^\./, '') || 'the value'} is nested more than ${MAX_CONFIG_DEPTH} levels deep` })
    }
    // The path names where it starts (apps[0].env.X), not all 64 levels.
    const name = (/** @type {string} */ key) => depth >= 4 ? (where.endsWith('…') ? where : `${where}…`) : Array.isArray(node) ? `${where}[${key}]` : `${where}.${key}`
    for (const [key, child] of Object.entries(node)) stack.push([child, name(key), depth + 1])
  }
}

/** What `sup start -` reads a config from: it has no file, so messages name it thus. */
export const STDIN_LABEL = 'on stdin'

/**
 * PM2's `pm2 start -`: a config piped in (`cat apps.json | sup start -`), read as a .json file
 * is (JSON5); relative paths in it resolve against the caller's cwd.
 * @param {string} text
 * @param {{ envName?: string }} [options]
 * @returns {Promise<Record<string, unknown>[]>} raw app entries
 */
export async function loadConfigText (text, { envName } = {}) {
  checkSize(Buffer.byteLength(text), STDIN_LABEL)
  return appsOf(await parseJson5(text, STDIN_LABEL), STDIN_LABEL, envName)
}

/**
 * @param {unknown} exported what a config file exports
 * @param {string} file named in errors
 * @param {string | undefined} envName
 */
function appsOf (exported, file, envName) {
  checkDepth(exported, file)
  const apps = extractApps(exported)
  if (apps.length === 0) throw new SupError('SUP_ERR_CONFIG_FILE_NO_APPS', { file })
  const deployEnv = envName ? deployEnvOf(exported, envName) : null
  return deployEnv ? apps.map((app) => withDeployEnv(app, deployEnv)) : apps
}

/**
 * PM2's `deploy.<env>.env`: with `--env <env>`, variables under every app's own `env`.
 * @param {unknown} exported
 * @param {string} envName
 * @returns {Record<string, unknown> | null}
 */
function deployEnvOf (exported, envName) {
  const deploy = exported !== null && typeof exported === 'object' && !Array.isArray(exported)
    ? /** @type {{ deploy?: unknown }} */ (exported).deploy
    : undefined
  if (deploy === null || typeof deploy !== 'object' || !Object.hasOwn(deploy, envName)) return null
  const env = /** @type {Record<string, { env?: unknown }>} */ (deploy)[envName]?.env
  return env !== null && typeof env === 'object' && !Array.isArray(env) ? /** @type {Record<string, unknown>} */ (env) : null
}

/**
 * @param {Record<string, unknown>} app
 * @param {Record<string, unknown>} deployEnv
 */
function withDeployEnv (app, deployEnv) {
  if (app === null || typeof app !== 'object' || Array.isArray(app)) return app
  const own = app.env !== null && typeof app.env === 'object' && !Array.isArray(app.env) ? app.env : {}
  // a non-object env stays as it is, for normalizeApp to report
  const merged = { ...app, env: app.env == null || own === app.env ? { ...deployEnv, ...own } : app.env }
  WITH_DEPLOY_ENV.add(merged)
  return merged
}

/** The entries `deploy.<name>.env` was applied to: --env has found something for them. */
export const WITH_DEPLOY_ENV = new WeakSet()

/**
 * Keep the apps named in `--only a,b`.
 * @template {{ name?: unknown, script?: unknown, cmd?: unknown, command?: unknown }} App
 * @param {App[]} apps raw entries or normalised configs
 * @param {string | undefined} only comma-separated names; empty keeps every app
 * @param {string} file named in the error
 * @returns {App[]}
 */
export function selectApps (apps, only, file) {
  const wanted = (only ?? '').split(',').map((name) => name.trim()).filter(Boolean)
  if (wanted.length === 0) return apps
  const selected = apps.filter((app) => wanted.includes(appName(app)))
  if (selected.length === 0) {
    throw new SupError('SUP_ERR_CONFIG_ONLY_NO_MATCH', { only, file, names: apps.map(appName).join(', ') || '(none)' })
  }
  return selected
}

/**
 * The name an entry will have: its own, or (as normalizeApp derives it) the script's basename.
 * @param {{ name?: unknown, script?: unknown, cmd?: unknown, command?: unknown }} app
 */
export function appName (app) {
  if (typeof app.name === 'string' && app.name !== '') return app.name
  const found = scriptOf(app)
  const script = typeof found === 'string' ? found : ''
  return isCommandString(script) ? commandName(script) : path.basename(script, path.extname(script))
}

/**
 * Accept `{ apps: [...] }`, PM2's older `{ pm2: [...] }`, a bare array, or one app object.
 * @param {unknown} exported
 * @returns {Record<string, unknown>[]}
 */
function extractApps (exported) {
  if (Array.isArray(exported)) return exported
  if (exported === null || typeof exported !== 'object') return []
  const { apps, pm2 } = /** @type {{ apps?: unknown, pm2?: unknown }} */ (exported)
  const listed = apps ?? pm2
  if (Array.isArray(listed)) return listed
  const single = listed ?? (scriptOf(/** @type {Record<string, unknown>} */ (exported)) === undefined ? null : exported)
  return single !== null && typeof single === 'object' ? [/** @type {Record<string, unknown>} */(single)] : []
}

/**
 * A .json file is read as JSON5, since PM2 reads it as a JavaScript literal: comments,
 * trailing commas, unquoted keys and single quotes are what people write in them. One that
 * is not JSON5 is evaluated as an expression, as PM2 does, but apart from the CLI's process.
 * @param {string} file
 */
async function readJson (file) {
  return parseJson5(fs.readFileSync(file, 'utf8'), file)
}

/**
 * @param {string} raw
 * @param {string} file named in errors
 */
async function parseJson5 (raw, file) {
  const text = raw.replace(/^\uFEFF/, '')
  // loaded on demand, like yaml: only `sup start <file>.json` needs it
  const { default: JSON5 } = await import('json5')
  try {
    return JSON5.parse(text)
  } catch (err) {
    // Not JSON5: perhaps an expression, which PM2 evaluates (json-expression.js says how).
    const { evaluateJsonExpression } = await import('./json-expression.js')
    const evaluated = evaluateJsonExpression(text, file)
    if (evaluated.ok) return evaluated.value
    if (!evaluated.syntax) {
      const reason = `${evaluated.message} (a .json file is evaluated with the language's built-ins and process.env only; a .config.js file can use modules)`
      throw new SupError('SUP_ERR_CONFIG_FILE_SYNTAX', { file, where: findLocation(evaluated.stack, file), reason })
    }
    const { message, lineNumber, columnNumber } = /** @type {Error & { lineNumber?: number, columnNumber?: number }} */ (err)
    const where = lineNumber ? `:${lineNumber}:${columnNumber}` : ''
    const reason = message.replace(/^JSON5: /, '').replace(/ at \d+:\d+$/, '')
    throw new SupError('SUP_ERR_CONFIG_FILE_SYNTAX', { file, where, reason }, { cause: err })
  }
}

/** @param {string} file */
async function readYaml (file) {
  const text = fs.readFileSync(file, 'utf8')
  // loaded on demand: most users never have a YAML file, and the CLI should start fast
  const { parse } = await import('yaml')
  try {
    return parse(text)
  } catch (err) {
    const { message, linePos } = /** @type {Error & { linePos?: { line: number, col: number }[] }} */ (err)
    const where = linePos?.[0] ? `:${linePos[0].line}:${linePos[0].col}` : ''
    const reason = /Maximum call stack/.test(message) ? `it is nested more than the parser can follow (${MAX_CONFIG_DEPTH} levels is the most sup takes)` : message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
    throw new SupError('SUP_ERR_CONFIG_FILE_SYNTAX', { file, where, reason }, { cause: err })
  }
}

/** @param {string} file */
async function importJs (file) {
  try {
    const mod = await import(pathToFileURL(file).href)
    // CJS `module.exports` arrives as `default`; ESM `export const apps` as the namespace
    return mod.default ?? mod
  } catch (err) {
    const reason = err instanceof Error ? err.message : String(err)
    throw new SupError('SUP_ERR_CONFIG_FILE_SYNTAX', { file, where: locateJsError(err, file), reason }, { cause: err })
  }
}

/**
 * Find the config file's line in an error's stack. Node 20 leaves the location out of ESM
 * syntax errors, so for those ask `node --check`, which prints it (costs a spawn, only on failure).
 * @param {unknown} err
 * @param {string} file
 * @returns {string} like ":12" or ":12:5", or ""
 */
function locateJsError (err, file) {
  const where = findLocation(err instanceof Error ? String(err.stack) : '', file)
  if (where !== '' || !(err instanceof SyntaxError)) return where
  const check = spawnSync(process.execPath, ['--check', file], { encoding: 'utf8', timeout: 10_000 })
  return findLocation(String(check.stderr), file)
}

/**
 * @param {string} text a stack or `node --check` output
 * @param {string} file
 */
function findLocation (text, file) {
  for (const prefix of [pathToFileURL(file).href, file]) {
    const match = new RegExp(escapeRegExp(prefix) + String.raw`:(\d+)(?::(\d+))?`).exec(text)
    if (match) return match[2] ? `:${match[1]}:${match[2]}` : `:${match[1]}`
  }
  return ''
}

/** @param {string} text */
function escapeRegExp (text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
