// @ts-check
// Turns one raw app entry (PM2 ecosystem keys, or the object the CLI builds from its flags)
// into the validated AppConfig the daemon keeps. Every problem is reported here, before
// anything reaches the daemon, as a SupError naming the option.

import fs from 'node:fs'
import path from 'node:path'
import { APP_DEFAULTS, APP_NAME_PATTERN } from '../../ipc/app-config.js'
import { STORED_FIELDS, fieldOf } from '../../ipc/app-fields.js'
import { SupError } from '../../ipc/errors.js'
import { parseListen } from '../../ipc/listen.js'
import { isNodeSpec } from '../../ipc/node-spec.js'
import { commandName, isCommandString, scriptOf, shellCommand } from './command.js'
import { detectInterpreter, findOnPath } from './interpreter.js'
import { parseDependsOn, parseProbe } from './probes.js'
import { describeValue, inputOf, parseArgList, parseBoolean, parseString, readField, resolvePath, throwInvalid } from './read-value.js'
import { parseCronRestart, parseIgnoreWatch, parseWatch } from './triggers.js'

export { parseBytes } from '../../ipc/units.js'
export { parseDuration } from './read-value.js'

const EXEC_MODES = /** @type {const} */ ({ cluster: 'cluster', cluster_mode: 'cluster', fork: 'fork', fork_mode: 'fork' })
const MAX_INSTANCES = 1024

/**
 * @typedef {object} NormalizeOptions
 * @property {string} cwd where relative paths resolve: the caller's cwd, or the config file's folder
 * @property {string} [envName] the --env name, selecting `env_<name>`
 * @property {number} cpus CPUs available, for `max` and negative instance counts
 * @property {string | null} [source] absolute path of the config file, or null for a CLI start
 */

/**
 * Normalise one raw app entry into an AppConfig: the keys the field table (ipc/app-fields.js)
 * gives an input kind are read by it; the ones it marks 'custom' are built here.
 * @param {Record<string, unknown>} raw PM2-style snake_case keys
 * @param {NormalizeOptions} options
 * @returns {import('../../ipc/app-config.js').AppConfig}
 */
export function normalizeApp (raw, { cwd, envName, cpus, source = null }) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throwInvalid('app', raw, 'each app must be an object such as { name, script }')
  }
  const appCwd = resolveCwd(raw.cwd, cwd)
  const read = (/** @type {string} */ key) => readField(fieldOf(key), raw, appCwd)
  const given = (/** @type {string} */ key) => inputOf(raw, fieldOf(key))
  const { script, onPath, command } = resolveScript(scriptOf(raw), appCwd)
  const name = resolveName(raw.name, command === null ? path.basename(script, path.extname(script)) : commandName(command))
  const run = command === null ? { file: script, args: parseArgList(raw.args, 'args') } : shellCommand(command, parseArgList(raw.args, 'args'), name)
  const detected = onPath ? { interpreter: 'none', interpreterArgs: [] } : detectInterpreter(script)
  const interpreterOption = given('interpreter')
  // a command line runs in the shell as it is: an interpreter has no place in front of it
  const interpreterGiven = command === null && interpreterOption != null && interpreterOption !== ''
  const interpreter = interpreterGiven ? normalizeInterpreter(interpreterOption) : detected.interpreter
  // shebang args apply only to the shebang's own interpreter
  const interpreterArgs = command !== null ? [] : given('interpreter_args') ?? (interpreterGiven ? [] : detected.interpreterArgs)
  const execMode = resolveExecMode(raw.exec_mode, raw.instances != null, interpreter, /** @type {boolean} */ (read('force_fork')))
  // PM2's disable_logs: no log files at all (sup logs still shows recent lines, from memory)
  const noLogs = read('disable_logs')
  /** @type {Record<string, unknown>} the 'custom' keys, and the log files disable_logs turns off */
  const built = {
    name,
    namespace: parseNamespace(raw.namespace),
    script: run.file,
    args: run.args,
    cwd: appCwd,
    instances: raw.instances == null ? APP_DEFAULTS.instances : parseInstances(raw.instances, cpus),
    exec_mode: execMode,
    interpreter,
    // a node asked for by path or version: still a node app (agent, cluster mode), on that node
    runtime: interpreterGiven ? nodeRuntimeOf(/** @type {string} */ (interpreterOption), appCwd) : null,
    interpreter_args: parseArgList(interpreterArgs, 'interpreter_args'),
    env: mergeEnv(raw.env, envName ? raw[`env_${envName}`] : undefined, `env_${envName}`),
    listen: parseListenOption(raw.listen, appCwd, execMode),
    stop_exit_codes: parseExitCodes(raw.stop_exit_codes),
    cron_restart: parseCronRestart(given('cron_restart')),
    ...parseWatch(raw.watch, appCwd),
    ignore_watch: parseIgnoreWatch(raw.ignore_watch),
    ...noLogs ? { out_file: '/dev/null', error_file: '/dev/null', log_file: null } : { log_file: resolveCombinedLog(given('log_file'), appCwd) },
    readiness: parseProbe(raw.readiness, 'readiness'),
    liveness: parseProbe(raw.liveness, 'liveness'),
    depends_on: parseDependsOn(raw.depends_on, name),
    source
  }
  const config = Object.fromEntries(STORED_FIELDS.map((field) => [field.key, Object.hasOwn(built, field.key) ? built[field.key] : readField(field, raw, appCwd)]))
  return /** @type {import('../../ipc/app-config.js').AppConfig} */ (/** @type {unknown} */ (config))
}

/**
 * `listen`: sockets the daemon holds for a fork-mode app, as canonical entries; unix socket
 * paths resolve against the app's cwd.
 * @param {unknown} value raw.listen
 * @param {string} cwd
 * @param {string} execMode
 * @returns {string[]}
 */
function parseListenOption (value, cwd, execMode) {
  const specs = parseListen(value, (p) => path.resolve(cwd, p))
  if ('error' in specs) throwInvalid('listen', specs.entry, specs.error)
  if (specs.length > 0 && execMode === 'cluster') {
    throwInvalid('listen', value, 'is for fork mode (in cluster mode the daemon already shares the port the app listens on); use exec_mode "fork", or leave listen out')
  }
  return specs.map((s) => s.name)
}

/**
 * @param {unknown} value raw.cwd
 * @param {string} base
 */
function resolveCwd (value, base) {
  if (value == null || value === '') return path.resolve(base)
  if (typeof value !== 'string') throwInvalid('cwd', value, 'must be a path')
  const dir = path.resolve(base, value)
  if (!fs.statSync(dir, { throwIfNoEntry: false })?.isDirectory()) throw new SupError('SUP_ERR_CONFIG_CWD_NOT_FOUND', { cwd: dir })
  return dir
}

/**
 * Find the script file; a bare word that is not a file is looked up on PATH, so
 * `sup start python3 -- -m http.server` runs a command; words that are not a file are a
 * command line for a shell (`sup start "npm run serve"`), as in PM2.
 * @param {unknown} value raw.script (or cmd, command)
 * @param {string} cwd
 * @returns {{ script: string, onPath: boolean, command: string | null }}
 */
function resolveScript (value, cwd) {
  if (typeof value !== 'string' || value.trim() === '') throwInvalid('script', value ?? '', 'every app needs a script: the file or command to run')
  const file = path.resolve(cwd, value)
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  if (stat?.isDirectory()) throw new SupError('SUP_ERR_CONFIG_SCRIPT_IS_DIRECTORY', { script: value })
  if (stat) return { script: file, onPath: false, command: null }
  if (isCommandString(value)) return { script: value, onPath: true, command: value }
  const command = value.includes('/') || value.includes(path.sep) ? null : findOnPath(value)
  if (command === null) throw new SupError('SUP_ERR_CONFIG_SCRIPT_NOT_FOUND', { script: value, cwd })
  return { script: command, onPath: true, command: null }
}

/**
 * @param {unknown} value raw.name
 * @param {string} derived the name when none is given: the script's base name, or a command's words
 */
function resolveName (value, derived) {
  if (value != null && typeof value !== 'string') throwInvalid('name', value, 'must be a string')
  const name = value || derived
  if (!APP_NAME_PATTERN.test(name)) throw new SupError('SUP_ERR_APP_NAME_INVALID', { name })
  return name
}

/**
 * PM2's `namespace`: a CLI target for a group of apps. It shares the names' alphabet, since
 * it is typed where a name is.
 * @param {unknown} value raw.namespace
 */
function parseNamespace (value) {
  const namespace = parseString(value, 'namespace') ?? APP_DEFAULTS.namespace
  if (!APP_NAME_PATTERN.test(namespace)) throwInvalid('namespace', namespace, 'use letters, digits, ".", "_" and "-", not starting with "." or "-", at most 64 characters')
  return namespace
}

/** @param {unknown} value raw.interpreter, present */
function normalizeInterpreter (value) {
  if (typeof value !== 'string') throwInvalid('interpreter', value, 'must be a command or path, "node", "node@22" or "none"')
  if (isNodeSpec(value)) return null
  return value
}

/**
 * The node an `interpreter` value asks for, kept as given ("node@22") or as an absolute path;
 * null for plain "node" (the default rules) and for other interpreters.
 * @param {string} value
 * @param {string} cwd the app's, for a relative path
 * @returns {string | null}
 */
function nodeRuntimeOf (value, cwd) {
  if (value === 'node' || !isNodeSpec(value)) return null
  return !value.startsWith('node@') && value.includes('/') ? path.resolve(cwd, value) : value
}

/**
 * PM2's rule: `-i` alone means cluster for node apps; cluster needs node, so others fork.
 * @param {unknown} value raw.exec_mode
 * @param {boolean} instancesGiven
 * @param {string | null} interpreter
 * @param {boolean} forceFork
 * @returns {'cluster' | 'fork'}
 */
function resolveExecMode (value, instancesGiven, interpreter, forceFork) {
  if (value != null && !Object.hasOwn(EXEC_MODES, String(value))) throwInvalid('exec_mode', value, 'use "cluster" or "fork"')
  const mode = value == null
    ? (instancesGiven && !forceFork ? 'cluster' : 'fork')
    : EXEC_MODES[/** @type {keyof typeof EXEC_MODES} */ (value)]
  return interpreter === null && mode === 'cluster' ? 'cluster' : 'fork'
}

/**
 * PM2 semantics: `env`, then `env_<name>` on top; a null value removes the variable.
 * @param {unknown} base raw.env
 * @param {unknown} overlay raw[`env_${name}`]
 * @param {string} overlayKey for the message
 * @returns {Record<string, string>}
 */
function mergeEnv (base, overlay, overlayKey) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const [option, layer] of /** @type {const} */ ([['env', base], [overlayKey, overlay]])) {
    if (layer == null) continue
    if (typeof layer !== 'object' || Array.isArray(layer)) throwInvalid(option, layer, 'must be an object of NAME: value')
    for (const [key, value] of Object.entries(layer)) {
      if (value === null || value === undefined) delete env[key]
      else env[key] = typeof value === 'object' ? JSON.stringify(value) : String(value)
    }
  }
  return env
}

/** @param {unknown} value raw.stop_exit_codes: a code, a list, or "0,2" from the CLI */
function parseExitCodes (value) {
  if (value == null || value === '') return []
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value]
  return list.map((item) => {
    const code = typeof item === 'string' && /^\s*\d+\s*$/.test(item) ? Number(item) : item
    if (!Number.isInteger(code) || /** @type {number} */ (code) < 0 || /** @type {number} */ (code) > 255) {
      throwInvalid('stop_exit_codes', value, 'use exit codes from 0 to 255, e.g. [0] or [0, 2]')
    }
    return /** @type {number} */ (code)
  })
}

/**
 * PM2's log_file: stdout and stderr in one more file; true means the default place.
 * @param {unknown} value
 * @param {string} cwd
 * @returns {string | true | null}
 */
function resolveCombinedLog (value, cwd) {
  if (value === true || value === false || (typeof value === 'string' && /^(true|false)$/i.test(value.trim()))) {
    return parseBoolean(value, 'log_file', false) ? true : null
  }
  return resolvePath(value, 'log_file', cwd)
}

/**
 * Read an instance count: N, "max", 0 (= CPUs) or -N (= CPUs minus N, at least 1).
 * @param {unknown} value
 * @param {number} cpus
 * @returns {number}
 */
export function parseInstances (value, cpus) {
  const text = typeof value === 'string' ? value.trim() : value
  const count = text === 'max' ? 0 : typeof text === 'string' && /^-?\d+$/.test(text) ? Number(text) : text
  if (!Number.isInteger(count)) throw new SupError('SUP_ERR_CONFIG_INVALID_INSTANCES', { value: describeValue(value) })
  const n = /** @type {number} */ (count)
  const instances = n === 0 ? cpus : n < 0 ? Math.max(1, cpus + n) : n
  if (instances > MAX_INSTANCES) throw new SupError('SUP_ERR_CONFIG_INVALID_INSTANCES', { value: describeValue(value) })
  return instances
}
