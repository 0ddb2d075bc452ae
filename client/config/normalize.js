// @ts-check
// Turns one raw app entry (PM2 ecosystem keys, or the object the CLI builds from its flags)
// into the validated AppConfig the daemon keeps. Every problem is reported here, before
// anything reaches the daemon, as a SupError naming the option.

import fs from 'node:fs'
import path from 'node:path'
import { APP_DEFAULTS, APP_NAME_PATTERN } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { parseListen } from '../../ipc/listen.js'
import { parseBytes } from '../../ipc/units.js'
import { commandName, isCommandString, scriptOf, shellCommand } from './command.js'
import { detectInterpreter, findOnPath } from './interpreter.js'
import { isNodeSpec } from '../../ipc/node-spec.js'
import { parseCronRestart, parseIgnoreWatch, parseWatch } from './triggers.js'
import { parseDependsOn, parseProbe } from './probes.js'

export { parseBytes }

const DURATION_KEYS = /** @type {const} */ (['listen_timeout', 'kill_timeout', 'min_uptime', 'restart_delay', 'exp_backoff_restart_delay', 'watch_delay'])
const EXEC_MODES = /** @type {const} */ ({ cluster: 'cluster', cluster_mode: 'cluster', fork: 'fork', fork_mode: 'fork' })
const DURATION_UNITS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }
const MAX_MS = 2 ** 31 - 1
const MAX_INSTANCES = 1024
const MAX_RETAIN = 100_000

/**
 * @typedef {object} NormalizeOptions
 * @property {string} cwd where relative paths resolve: the caller's cwd, or the config file's folder
 * @property {string} [envName] the --env name, selecting `env_<name>`
 * @property {number} cpus CPUs available, for `max` and negative instance counts
 * @property {string | null} [source] absolute path of the config file, or null for a CLI start
 */

/**
 * Normalise one raw app entry into an AppConfig.
 * @param {Record<string, unknown>} raw PM2-style snake_case keys
 * @param {NormalizeOptions} options
 * @returns {import('../../ipc/app-config.js').AppConfig}
 */
export function normalizeApp (raw, { cwd, envName, cpus, source = null }) {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throwInvalid('app', raw, 'each app must be an object such as { name, script }')
  }
  const appCwd = resolveCwd(raw.cwd, cwd)
  const { script, onPath, command } = resolveScript(scriptOf(raw), appCwd)
  const name = resolveName(raw.name, command === null ? path.basename(script, path.extname(script)) : commandName(command))
  const args = parseArgList(raw.args, 'args')
  const run = command === null ? { file: script, args } : shellCommand(command, args, name)
  const detected = onPath ? { interpreter: 'none', interpreterArgs: [] } : detectInterpreter(script)
  const interpreterOption = raw.interpreter ?? raw.exec_interpreter
  // a command line runs in the shell as it is: an interpreter has no place in front of it
  const interpreterGiven = command === null && interpreterOption != null && interpreterOption !== ''
  const interpreter = interpreterGiven ? normalizeInterpreter(interpreterOption) : detected.interpreter
  // a node asked for by path or version: still a node app (agent, cluster mode), on that node
  const runtime = interpreterGiven ? nodeRuntimeOf(/** @type {string} */ (interpreterOption), appCwd) : null
  // shebang args apply only to the shebang's own interpreter
  const interpreterArgs = command !== null ? [] : raw.interpreter_args ?? raw.node_args ?? (interpreterGiven ? [] : detected.interpreterArgs)
  const forceFork = parseBoolean(raw.force_fork, 'force_fork', false)
  // PM2's disable_logs: no log files at all (sup logs still shows recent lines, from memory)
  const noLogs = parseBoolean(raw.disable_logs, 'disable_logs', false)
  /** @type {Record<string, unknown>} */
  const config = {
    name,
    namespace: parseNamespace(raw.namespace),
    script: run.file,
    args: run.args,
    cwd: appCwd,
    exec_mode: resolveExecMode(raw.exec_mode, raw.instances != null, interpreter, forceFork),
    instances: raw.instances == null ? APP_DEFAULTS.instances : parseInstances(raw.instances, cpus),
    interpreter,
    runtime,
    interpreter_args: parseArgList(interpreterArgs, 'interpreter_args'),
    env: mergeEnv(raw.env, envName ? raw[`env_${envName}`] : undefined, `env_${envName}`),
    instance_var: parseString(raw.instance_var, 'instance_var') ?? APP_DEFAULTS.instance_var,
    increment_var: parseString(raw.increment_var, 'increment_var'),
    wait_ready: parseBoolean(raw.wait_ready, 'wait_ready', APP_DEFAULTS.wait_ready),
    // durations are placeholders here, to keep the schema's key order; filled in below
    listen_timeout: 0,
    kill_timeout: 0,
    shutdown_with_message: parseBoolean(raw.shutdown_with_message, 'shutdown_with_message', APP_DEFAULTS.shutdown_with_message),
    max_restarts: raw.max_restarts == null || raw.max_restarts === '' ? APP_DEFAULTS.max_restarts : parseCount(raw.max_restarts, 'max_restarts', 1e9),
    min_uptime: 0,
    restart_delay: 0,
    exp_backoff_restart_delay: 0,
    autorestart: parseBoolean(raw.autorestart, 'autorestart', APP_DEFAULTS.autorestart),
    autostart: parseBoolean(raw.autostart, 'autostart', APP_DEFAULTS.autostart),
    vizion: parseBoolean(raw.vizion, 'vizion', APP_DEFAULTS.vizion),
    stop_exit_codes: parseExitCodes(raw.stop_exit_codes),
    max_memory_restart: raw.max_memory_restart == null || raw.max_memory_restart === '' ? null : parseBytes(raw.max_memory_restart, 'max_memory_restart'),
    out_file: noLogs ? '/dev/null' : resolveLogFile(raw.out_file ?? raw.output ?? raw.out ?? raw.out_log, 'out_file', appCwd),
    error_file: noLogs ? '/dev/null' : resolveLogFile(raw.error_file ?? raw.error ?? raw.err_file ?? raw.err ?? raw.err_log, 'error_file', appCwd),
    log_file: noLogs ? null : resolveCombinedLog(raw.log_file ?? raw.log, appCwd),
    pid_file: resolveLogFile(raw.pid_file ?? raw.pid, 'pid_file', appCwd),
    merge_logs: parseBoolean(raw.merge_logs ?? raw.combine_logs, 'merge_logs', APP_DEFAULTS.merge_logs),
    time: parseBoolean(raw.time, 'time', APP_DEFAULTS.time),
    log_date_format: parseString(raw.log_date_format, 'log_date_format'),
    log_type: parseLogType(raw.log_type),
    log_max_size: raw.log_max_size == null || raw.log_max_size === '' ? null : parseBytes(raw.log_max_size, 'log_max_size', { allowZero: true }),
    log_retain: raw.log_retain == null || raw.log_retain === '' ? null : parseCount(raw.log_retain, 'log_retain', MAX_RETAIN),
    log_compress: raw.log_compress == null || raw.log_compress === '' ? null : parseBoolean(raw.log_compress, 'log_compress', false),
    cron_restart: parseCronRestart(raw.cron_restart ?? raw.cron),
    ...parseWatch(raw.watch, appCwd),
    ignore_watch: parseIgnoreWatch(raw.ignore_watch),
    watch_delay: 0,
    listen: [],
    readiness: parseProbe(raw.readiness, 'readiness'),
    liveness: parseProbe(raw.liveness, 'liveness'),
    depends_on: parseDependsOn(raw.depends_on, name),
    source
  }
  config.listen = parseListenOption(raw.listen, appCwd, /** @type {string} */ (config.exec_mode))
  for (const key of DURATION_KEYS) {
    config[key] = raw[key] == null || raw[key] === '' ? APP_DEFAULTS[key] : parseDuration(raw[key], key)
  }
  return /** @type {import('../../ipc/app-config.js').AppConfig} */ (config)
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

/**
 * @param {unknown} value
 * @param {string} option
 * @returns {string | null}
 */
function parseString (value, option) {
  if (value == null || value === '') return null
  if (typeof value !== 'string') throwInvalid(option, value, 'must be a string')
  return value
}

/**
 * @param {unknown} value a whole number, or its digits as a string
 * @param {string} option
 * @param {number} max
 */
function parseCount (value, option, max) {
  const count = typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value) : value
  if (!Number.isInteger(count) || /** @type {number} */ (count) < 0) throwInvalid(option, value, 'must be a whole number, 0 or more')
  if (/** @type {number} */ (count) > max) throwInvalid(option, value, `must be at most ${max}`)
  return /** @type {number} */ (count)
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
 * @param {unknown} value
 * @param {string} option
 * @param {string} cwd
 */
function resolveLogFile (value, option, cwd) {
  const file = parseString(value, option)
  if (file === null) return null
  return file === '/dev/null' || file === 'NULL' ? '/dev/null' : path.resolve(cwd, file)
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
  return resolveLogFile(value, 'log_file', cwd)
}

/** @param {unknown} value */
function parseLogType (value) {
  if (value == null || value === '') return APP_DEFAULTS.log_type
  if (value !== 'json' && value !== 'raw') throwInvalid('log_type', value, 'use "json" or "raw"')
  return value
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
  if (!Number.isInteger(count)) throw new SupError('SUP_ERR_CONFIG_INVALID_INSTANCES', { value: describe(value) })
  const n = /** @type {number} */ (count)
  const instances = n === 0 ? cpus : n < 0 ? Math.max(1, cpus + n) : n
  if (instances > MAX_INSTANCES) throw new SupError('SUP_ERR_CONFIG_INVALID_INSTANCES', { value: describe(value) })
  return instances
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
 * Read args given as a list or as one string split on spaces, honouring '...' and "...".
 * @param {unknown} value
 * @param {string} option
 * @returns {string[]}
 */
function parseArgList (value, option) {
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
 * @param {unknown} value true/false, or "true"/"false" from the CLI
 * @param {string} option
 * @param {boolean} fallback when absent
 */
function parseBoolean (value, option, fallback) {
  if (value == null || value === '') return fallback
  if (typeof value === 'boolean') return value
  const text = typeof value === 'string' ? value.trim().toLowerCase() : ''
  if (text !== 'true' && text !== 'false') throwInvalid(option, value, 'use true or false')
  return text === 'true'
}

/**
 * @param {string} option
 * @param {unknown} value
 * @param {string} reason what to write instead
 * @returns {never}
 */
function throwInvalid (option, value, reason) {
  throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option, value: describe(value), reason })
}

/** @param {unknown} value */
function describe (value) {
  return typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
}
