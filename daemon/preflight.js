// @ts-check
// Refuse early, once, clearly (issue 20): an app that cannot run at all (its cwd gone, its
// script missing or unreadable, its program not executable, its interpreter nowhere on PATH)
// is refused with a coded error before its first spawn, instead of crash-looping 16 times with
// the reason in a stack trace. The daemon checks, not only the CLI: it spawns, and a config
// from a dump or sup-runtime never went through the CLI. Run once per app, where apps are
// added (Supervisor.start, the dump's restore); a few stat/access calls, no spawn (the --version
// of the nodes it may run on was asked ahead: Effects.prepare).
import fs from 'node:fs'
import path from 'node:path'
import { SupError } from '../ipc/errors.js'
import { findOnPath, isExecutableFile } from '../ipc/executables.js'

/**
 * Throw the SupError that says why `config` cannot start, if it cannot.
 * @param {import('../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env the environment its processes get (the caller's shell
 *   under the app's env): PATH finds the interpreter there, as spawn does
 * @param {(config: import('../ipc/app-config.js').AppConfig, env: Record<string, string>) => unknown} resolve finds its node
 *   (the daemon's runtimeResolver, prepared for this config)
 * @throws {SupError}
 */
export function preflight (config, env, resolve) {
  if (!fs.statSync(config.cwd, { throwIfNoEntry: false })?.isDirectory()) throw new SupError('SUP_ERR_CONFIG_CWD_NOT_FOUND', { cwd: config.cwd })
  // interpreter "none": the script is the program (a binary, a command line's shell);
  // otherwise node or the interpreter reads it.
  const runsItself = config.interpreter === 'none'
  const onPath = runsItself && !config.script.includes('/') ? findOnPath(config.script, searchPath(env)) : null
  checkScript(onPath ?? path.resolve(config.cwd, config.script), runsItself, config)
  if (!runsItself && config.interpreter !== null) checkInterpreter(config.interpreter, config, env)
  // node@22, .nvmrc, bun, deno: found, or SUP_ERR_INTERPRETER_*.
  resolve(config, env)
}

/**
 * @param {string} file absolute
 * @param {boolean} runsItself executed, not read by an interpreter
 * @param {import('../ipc/app-config.js').AppConfig} config
 */
function checkScript (file, runsItself, config) {
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  if (!stat) throw new SupError('SUP_ERR_CONFIG_SCRIPT_NOT_FOUND', { script: file, cwd: config.cwd })
  if (stat.isDirectory()) throw new SupError('SUP_ERR_CONFIG_SCRIPT_IS_DIRECTORY', { script: file })
  const mode = runsItself ? fs.constants.X_OK : fs.constants.R_OK
  try {
    fs.accessSync(file, mode)
  } catch (err) {
    const reason = /** @type {NodeJS.ErrnoException} */ (err).code ?? 'EACCES'
    if (runsItself) throw new SupError('SUP_ERR_CONFIG_SCRIPT_NOT_EXECUTABLE', { script: file, name: config.name, reason })
    throw new SupError('SUP_ERR_CONFIG_SCRIPT_UNREADABLE', { script: file, name: config.name, reason })
  }
}

/**
 * python3, /opt/bin/ruby, ./venv/bin/python: on the workers' PATH, or a path to an executable.
 * @param {string} interpreter
 * @param {import('../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 */
function checkInterpreter (interpreter, config, env) {
  // node@22, bun and deno are resolveRuntime's.
  if (['bun', 'deno'].includes(path.basename(interpreter))) return
  const found = interpreter.includes('/') ? isExecutableFile(path.resolve(config.cwd, interpreter)) : findOnPath(interpreter, searchPath(env)) !== null
  if (found) return
  const fix = interpreter.includes('/')
    ? `${path.resolve(config.cwd, interpreter)} is not an executable file; fix the path in interpreter`
    : `"${interpreter}" is not on the PATH sup start was run with; install it, or set interpreter to its full path`
  throw new SupError('SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: interpreter, name: config.name, fix })
}

/**
 * The PATH spawn searches: the workers' own, else libuv's default when they have none.
 * @param {Record<string, string>} env
 */
function searchPath (env) {
  return env.PATH ?? '/usr/bin:/bin'
}
