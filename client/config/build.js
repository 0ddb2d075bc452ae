// @ts-check
// A start target (a script and its flags, or a config file) as the validated app configs the
// daemon takes. Shared by sup start, sup reload <config> and sup-runtime; paths resolve
// against the caller's cwd, or the config file's folder.
import { availableParallelism } from 'node:os'
import { dirname } from 'node:path'
import { APP_FIXED_KEYS } from '../../ipc/app-config.js'
import { readStdin } from '../stdin.js'
import { STDIN_LABEL, isConfigFile, loadConfigFile, loadConfigText, selectApps } from './load-file.js'
import { normalizeApp } from './normalize.js'
import { appEntryFromFlags } from './start-options.js'

/**
 * @param {string} target a script, a config file, or "-": a config on stdin (PM2's `start -`)
 * @param {string[]} args the script's arguments
 * @param {Record<string, any>} opts the parsed start options (client/config/start-options.js)
 * @param {string} cwd
 * @param {{ stdin?: () => Promise<string> }} [io] where "-" reads from (tests pass text)
 * @returns {Promise<import('../../ipc/app-config.js').AppConfig[]>}
 */
export async function buildConfigs (target, args, opts, cwd, { stdin = readStdin } = {}) {
  const cpus = availableParallelism()
  if (target === '-') {
    const apps = await loadConfigText(await stdin(), { envName: opts.env })
    const selected = opts.only ? selectApps(apps, opts.only, STDIN_LABEL) : apps
    // a piped config has no folder of its own: its paths are the caller's
    return selected.map((raw) => normalizeApp(raw, { cwd, envName: opts.env, cpus, source: null }))
  }
  if (isConfigFile(target)) {
    const { file, apps } = await loadConfigFile(target, cwd, { envName: opts.env })
    const selected = opts.only ? selectApps(apps, opts.only, file) : apps
    return selected.map((raw) => normalizeApp(raw, { cwd: dirname(file), envName: opts.env, cpus, source: file }))
  }
  return [normalizeApp(rawFromFlags(target, args, opts), { cwd, envName: opts.env, cpus, source: null })]
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
