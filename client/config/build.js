// @ts-check
// A start target (a script and its flags, or a config file) as the validated app configs the
// daemon takes. Shared by sup start, sup reload <config> and sup-runtime; paths resolve
// against the caller's cwd, or the config file's folder. What a config file's apps leave out
// of effect (keys sup does not use, flags a config file does not take, an --env no app has)
// is said in warnings, not errors: a PM2 file must keep working.
import { escapeControls } from '../../ipc/terminal-text.js'
import { availableParallelism } from 'node:os'
import { dirname } from 'node:path'
import { APP_FIXED_KEYS } from '../../ipc/app-config.js'
import { fieldOf } from '../../ipc/app-fields.js'
import { SupError } from '../../ipc/errors.js'
import { readStdin } from '../stdin.js'
import { ignoredKeys } from './ignored-keys.js'
import { STDIN_LABEL, WITH_DEPLOY_ENV, appName, isConfigFile, loadConfigFile, loadConfigText, selectApps } from './load-file.js'
import { normalizeApp } from './normalize.js'
import { inputOf } from './read-value.js'
import { START_OPTIONS, appEntryFromFlags, longFlag } from './start-options.js'

/**
 * @typedef {object} BuildIo
 * @property {() => Promise<string>} [stdin] where "-" reads from (tests pass text)
 * @property {(text: string) => void} [warn] a warning: a key or flag that has no effect
 */

/**
 * @param {string} target a script, a config file, or "-": a config on stdin (PM2's `start -`)
 * @param {string[]} args the script's arguments
 * @param {Record<string, any>} opts the parsed start options (client/config/start-options.js)
 * @param {string} cwd
 * @param {BuildIo} [io]
 * @returns {Promise<import('../../ipc/app-config.js').AppConfig[]>}
 */
export async function buildConfigs (target, args, opts, cwd, { stdin = readStdin, warn = () => {} } = {}) {
  const cpus = availableParallelism()
  if (target !== '-' && !isConfigFile(target)) {
    return [normalizeApp(rawFromFlags(target, args, opts), { cwd, envName: opts.env, cpus, source: null })]
  }
  const { label, file, apps } = target === '-'
    ? { label: 'the config on stdin', file: null, apps: await loadConfigText(await stdin(), { envName: opts.env }) }
    : { label: target, ...await loadConfigFile(target, cwd, { envName: opts.env }) }
  const selected = opts.only ? selectApps(apps, opts.only, file ?? STDIN_LABEL) : apps
  const flags = flagsForFile(opts, label, warn)
  const names = selected.map((raw, i) => isEntry(raw) ? appName(raw) || `#${i + 1}` : `#${i + 1}`)
  if (opts.env && !selected.some((raw) => isEntry(raw) && (Object.hasOwn(raw, `env_${opts.env}`) || WITH_DEPLOY_ENV.has(raw)))) {
    warn(`${label}: --env ${opts.env}: no app has env_${opts.env} (${names.join(', ')}): they start with their env only`)
  }
  return selected.map((raw, i) => {
    if (isEntry(raw)) for (const text of ignoredKeys(raw)) warn(`${label}: app "${names[i]}": ${text}`)
    try {
      // a piped config has no folder of its own: its paths are the caller's
      return normalizeApp(withFlags(raw, flags), { cwd: file ? dirname(file) : cwd, envName: opts.env, cpus, source: file })
    } catch (err) {
      if (!(err instanceof SupError)) throw err
      throw new SupError(err.code, { ...err.details, config: label, app: names[i] }, { message: `${label}: app "${names[i]}": ${err.message}`, cause: err })
    }
  })
}

/** @param {unknown} raw @returns {raw is Record<string, unknown>} */
function isEntry (raw) {
  return raw !== null && typeof raw === 'object' && !Array.isArray(raw)
}

// PM2 (lib/API.js, _startJson) takes these flags to a config file's apps: -i over the file's
// instances (sup takes -x with it), --watch, --ignore-watch and --namespace where an app has
// none; every other start flag it drops without a word, which sup says.
const OVERRIDES = ['instances', 'force_fork']
const DEFAULTS = ['watch', 'ignore_watch', 'namespace']

/**
 * The flags that apply to a config file's apps; a warning for the others.
 * @param {Record<string, any>} opts
 * @param {string} label the file, for the message
 * @param {(text: string) => void} warn
 */
function flagsForFile (opts, label, warn) {
  const entry = appEntryFromFlags(opts)
  const dropped = Object.keys(entry).filter((key) => !OVERRIDES.includes(key) && !DEFAULTS.includes(key))
  if (dropped.length > 0) {
    const flags = [...new Set(dropped.map((key) => longFlag(/** @type {import('./start-options.js').StartOption} */ (START_OPTIONS.find((o) => o.key === key)).flags)))]
    warn(`${label}: ${flags.join(', ')} ${flags.length > 1 ? 'do' : 'does'} not apply to a config file's apps (set ${dropped.join(', ')} in the file); ignored`)
  }
  const pick = (/** @type {string[]} */ keys) => Object.fromEntries(Object.entries(entry).filter(([key]) => keys.includes(key)))
  return { overrides: pick(OVERRIDES), defaults: pick(DEFAULTS) }
}

/**
 * @param {unknown} raw an entry of the file
 * @param {{ overrides: Record<string, unknown>, defaults: Record<string, unknown> }} flags
 */
function withFlags (raw, { overrides, defaults }) {
  if (!isEntry(raw)) return /** @type {Record<string, unknown>} */ (raw)
  const missing = Object.entries(defaults).filter(([key]) => inputOf(raw, fieldOf(key)) == null)
  return { ...raw, ...Object.fromEntries(missing), ...overrides }
}

/**
 * The CLI flags as a PM2-style app entry, so one normaliser serves flags and config files.
 * @param {string} script
 * @param {string[]} args
 * @param {Record<string, any>} opts
 */
export function rawFromFlags (script, args, opts) {
  return { script, args, ...appEntryFromFlags(opts) }
}

/**
 * Flags that make another app (or a scale) rather than change this one are not sent on
 * restart; but `--name` is (it renames the app), and `--watch` is not (on restart it toggles).
 */
const NOT_UPDATES = new Set([...APP_FIXED_KEYS.filter((key) => key !== 'name'), 'watch'])

/**
 * The settings the given flags change, for an app that exists (`sup restart api --node-args
 * "--harmony"`, `sup start api --time`), normalised as sup start would; undefined when none.
 * `--node-args null` clears them, as in PM2. --watch is not here: on restart it toggles.
 * `--name` renames the app (the daemon checks it names one).
 * @param {Record<string, any>} opts the parsed flags
 * @param {string} cwd
 * @returns {Partial<import('../../ipc/app-config.js').AppConfig> | undefined}
 */
export function buildUpdate (opts, cwd) {
  const entry = appEntryFromFlags(opts)
  const keys = Object.keys(entry).filter((key) => !NOT_UPDATES.has(key))
  if (keys.length === 0) return undefined
  if (entry.interpreter_args === 'null') entry.interpreter_args = []
  // Any file will do as the script: only the keys given are kept.
  const config = normalizeApp({ name: 'update', ...entry, script: process.execPath }, { cwd, cpus: availableParallelism(), source: null })
  return Object.fromEntries(keys.filter((key) => key in config).map((key) => [key, config[/** @type {keyof typeof config} */ (key)]]))
}

/**
 * Warnings (a key or flag with no effect) on stderr, each once; -s hushes them. A key's name
 * comes from someone's file: its control characters are shown escaped, never sent to the terminal.
 * @param {{ err: (text: string) => void, warn?: (text: string) => void }} io
 * @param {string} [prefix] the program that speaks
 */
export function warnOnce (io, prefix = 'sup') {
  const said = new Set()
  return (/** @type {string} */ text) => {
    if (said.has(text)) return
    said.add(text)
    ;(io.warn ?? io.err)(`${prefix}: ${escapeControls(text)}`)
  }
}
