// @ts-check
// Reads an ecosystem file (.js/.cjs/.mjs, .json, .yml/.yaml) into raw app entries.
// A broken file is reported with its path and line, since that is what the user must fix.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { SupError } from '../../ipc/errors.js'

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
 * @returns {Promise<{ file: string, apps: Record<string, unknown>[] }>}
 */
export async function loadConfigFile (file, cwd) {
  const abs = path.resolve(cwd, file)
  if (!fs.statSync(abs, { throwIfNoEntry: false })?.isFile()) throw new SupError('SUP_ERR_CONFIG_FILE_NOT_FOUND', { file: abs })
  const ext = path.extname(abs).toLowerCase()
  const exported = ext === '.json'
    ? readJson(abs)
    : ext === '.yml' || ext === '.yaml' ? await readYaml(abs) : await importJs(abs)
  const apps = extractApps(exported)
  if (apps.length === 0) throw new SupError('SUP_ERR_CONFIG_FILE_NO_APPS', { file: abs })
  return { file: abs, apps }
}

/**
 * Keep the apps named in `--only a,b`.
 * @template {{ name?: unknown, script?: unknown }} App
 * @param {App[]} apps raw entries or normalised configs
 * @param {string | undefined} only comma-separated names; empty keeps every app
 * @param {string} file named in the error
 * @returns {App[]}
 */
export function selectApps (apps, only, file) {
  const wanted = (only ?? '').split(',').map((name) => name.trim()).filter(Boolean)
  if (wanted.length === 0) return apps
  const selected = apps.filter((app) => wanted.includes(nameOf(app)))
  if (selected.length === 0) {
    throw new SupError('SUP_ERR_CONFIG_ONLY_NO_MATCH', { only, file, names: apps.map(nameOf).join(', ') || '(none)' })
  }
  return selected
}

/**
 * The name an entry will have: its own, or (as normalizeApp derives it) the script's basename.
 * @param {{ name?: unknown, script?: unknown }} app
 */
function nameOf (app) {
  if (typeof app.name === 'string' && app.name !== '') return app.name
  const script = typeof app.script === 'string' ? app.script : ''
  return path.basename(script, path.extname(script))
}

/**
 * Accept `{ apps: [...] }`, a bare array, or one app object.
 * @param {unknown} exported
 * @returns {Record<string, unknown>[]}
 */
function extractApps (exported) {
  if (Array.isArray(exported)) return exported
  if (exported === null || typeof exported !== 'object') return []
  const { apps, script } = /** @type {{ apps?: unknown, script?: unknown }} */ (exported)
  if (Array.isArray(apps)) return apps
  const single = apps ?? (script === undefined ? null : exported)
  return single !== null && typeof single === 'object' ? [/** @type {Record<string, unknown>} */(single)] : []
}

/** @param {string} file */
function readJson (file) {
  const text = fs.readFileSync(file, 'utf8').replace(/^\uFEFF/, '')
  try {
    return JSON.parse(text)
  } catch (err) {
    const message = /** @type {Error} */ (err).message
    const position = /at position (\d+)/.exec(message)?.[1] ?? (/end of JSON input/.test(message) ? text.length : null)
    const where = position === null ? '' : locatePosition(text, Number(position))
    const reason = message.replace(/\s*in JSON at position \d+.*$/s, '')
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
    const reason = message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '')
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

/**
 * @param {string} text
 * @param {number} position offset into text
 */
function locatePosition (text, position) {
  const lines = text.slice(0, position).split('\n')
  return `:${lines.length}:${lines[lines.length - 1].length + 1}`
}

/** @param {string} text */
function escapeRegExp (text) {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
