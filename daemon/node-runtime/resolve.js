// @ts-check
// Which program runs an app's workers: the node it asks for (`interpreter: /path/to/node` or
// `node@22`, else `.nvmrc` / `.node-version` in its cwd, else the daemon's own), or bun or
// deno. Resolved again for every process started, so an app whose `.nvmrc` moves to a newly
// installed version takes it at its next reload (PM2 #4787). Rules in docs/config.md#interpreter.
// Resolving is synchronous and reads only what binaries have said to --version already; asking
// them runs a child process, so it is done ahead, asynchronously, where a config enters the
// daemon (runtimeResolver's prepare): nothing here blocks the daemon's event loop.
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { findOnPath, isExecutableFile } from '../../ipc/executables.js'

/**
 * @typedef {object} Runtime
 * @property {'node' | 'bun' | 'deno'} kind
 * @property {string} path absolute
 * @property {string} version what it reports: `process.version` for node ("v22.11.0")
 * @property {boolean} own the daemon's own node: cluster workers fork from the daemon itself
 * @property {string} source where it was asked for: "interpreter", ".nvmrc", ".node-version" or "default"
 */

/** Runtimes other than node that sup starts by name, found on PATH. */
const OTHER_RUNTIMES = /** @type {const} */ (['bun', 'deno'])
const VERSION_FILES = /** @type {const} */ (['.nvmrc', '.node-version'])
/** A version as `.nvmrc` and `node@` write it: 22, v22, 22.11, 22.11.0. */
const VERSION_SPEC = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/
const VERSION_TIMEOUT_MS = 5000

/**
 * What a binary said to --version: a string, null when it failed to say (or was never asked).
 * @typedef {(file: string) => string | null} Versions
 */

/** The daemon's own node. */
const OWN = Object.freeze({ kind: /** @type {const} */ ('node'), path: process.execPath, version: process.version, own: true })

/**
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env the caller's shell (PATH, HOME, NVM_DIR) under the app's env
 * @param {Versions} versions what binaries said to --version (runtimeResolver keeps them)
 * @returns {Runtime | null} null: another interpreter (python3, bash, ...) or a command, run as it is
 */
export function resolveRuntime (config, env, versions) {
  const { interpreter } = config
  if (interpreter !== null) return OTHER_RUNTIMES.includes(/** @type {any} */ (path.basename(interpreter))) ? resolveOther(config, env, versions) : null
  if (config.runtime != null) return resolveNode(config.runtime, 'interpreter', config, env, versions)
  for (const file of typeof config.cwd === 'string' ? VERSION_FILES : []) {
    const spec = readVersionFile(path.join(config.cwd, file))
    if (spec !== null) return resolveNode(spec, file, config, env, versions)
  }
  return { ...OWN, source: 'default' }
}

/**
 * @param {string} spec a path, "node@22", or a version from a version file
 * @param {string} source
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 * @param {Versions} versions
 * @returns {Runtime}
 */
function resolveNode (spec, source, config, env, versions) {
  // A path only where a path may be given: a version file holds versions ("lts/*" is an alias).
  if (source === 'interpreter' && !spec.startsWith('node@') && spec.includes('/')) {
    const file = path.resolve(config.cwd, spec)
    const version = versionOf(file, config.name, true, versions)
    if (!/^v\d+\./.test(version)) throw new SupError('SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { path: file, name: config.name, reason: `answered --version with "${version.slice(0, 40)}", not a node version` })
    return { kind: 'node', path: file, version, own: sameFile(file, process.execPath), source }
  }
  const asked = spec.replace(/^node@/, '')
  const version = VERSION_SPEC.test(asked) ? asked : nvmAlias(asked, env)
  const wanted = version === null ? null : VERSION_SPEC.exec(version) ?? (version === '' ? [''] : null)
  if (wanted === null) throw new SupError('SUP_ERR_INTERPRETER_VERSION_INVALID', { value: spec, source: source === 'interpreter' ? 'interpreter' : path.join(config.cwd, source), name: config.name })
  const prefix = wanted.slice(1).filter((part) => part !== undefined).map(Number)
  const matches = (/** @type {string} */ version) => prefix.every((part, i) => parseVersion(version)[i] === part)
  // The daemon's own node when it fits: no second primary, nothing changes ("node": the newest).
  if (prefix.length > 0 && matches(process.version)) return { ...OWN, source }
  const found = findNodes(prefix[0], env, versions).filter((c) => matches(c.version))
  found.sort((a, b) => compareVersions(b.version, a.version))
  if (found.length === 0) {
    const label = asked === version ? `node ${asked}` : `node ${asked} (${version || 'the newest installed'})`
    throw new SupError('SUP_ERR_INTERPRETER_NOT_FOUND', {
      runtime: source === 'interpreter' ? label : `${label} (from ${path.join(config.cwd, source)})`,
      name: config.name,
      fix: `install it (nvm install ${asked}), or set interpreter to the path of a node binary`
    })
  }
  return { kind: 'node', path: found[0].path, version: found[0].version, own: false, source }
}

/**
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {Record<string, string>} env
 * @param {Versions} versions
 * @returns {Runtime}
 */
function resolveOther (config, env, versions) {
  const interpreter = /** @type {string} */ (config.interpreter)
  const kind = /** @type {'bun' | 'deno'} */ (path.basename(interpreter))
  const file = interpreter.includes('/') ? path.resolve(config.cwd, interpreter) : findOnPath(interpreter, env.PATH)
  if (file === null || !isExecutableFile(file)) {
    throw new SupError('SUP_ERR_INTERPRETER_NOT_FOUND', { runtime: kind, name: config.name, fix: `install ${kind} (${kind === 'bun' ? 'bun.sh' : 'deno.com'}) where the PATH of "sup start" finds it, or set interpreter to its path` })
  }
  const version = versionOf(file, config.name, false, versions).replace(/^deno\s+/, '').split(/\s/)[0]
  return { kind, path: file, version, own: false, source: 'interpreter' }
}

/**
 * What an nvm alias (`lts/*`, `lts/iron`, `default`, or one of your own) stands for, from the
 * files nvm keeps in $NVM_DIR/alias; "node" and "stable" are the newest installed ('').
 * @param {string} alias
 * @param {Record<string, string>} env
 * @returns {string | null} a version, '' for any, or null when nvm does not know it
 */
function nvmAlias (alias, env, depth = 0) {
  if (alias === 'node' || alias === 'stable') return ''
  if (depth > 8 || !/^[\w.*-]+(\/[\w.*-]+)?$/.test(alias) || alias.includes('..')) return null
  const target = readVersionFile(path.join(nvmDir(env), 'alias', alias))
  if (target === null) return null
  return VERSION_SPEC.test(target) ? target : nvmAlias(target, env, depth + 1)
}

/** @param {Record<string, string>} env */
function nvmDir (env) {
  return env.NVM_DIR || path.join(env.HOME ?? '', '.nvm')
}

/**
 * Node binaries of a major version (any, when undefined): on PATH as node@22, node22, node-22
 * or node itself, and those nvm and n installed.
 * @param {number | undefined} major
 * @param {Record<string, string>} env
 * @param {Versions} versions
 * @returns {Array<{ path: string, version: string }>}
 */
function findNodes (major, env, versions) {
  /** @type {Array<{ path: string, version: string }>} */
  const found = []
  const names = major === undefined ? ['node'] : [`node@${major}`, `node${major}`, `node-${major}`, 'node']
  for (const name of names) {
    const file = findOnPath(name, env.PATH)
    const version = file === null ? null : versions(file)
    if (file !== null && version !== null) found.push({ path: file, version })
  }
  const dirs = [
    path.join(nvmDir(env), 'versions', 'node'),
    path.join(env.N_PREFIX || '/usr/local', 'n', 'versions', 'node')
  ]
  for (const dir of dirs) {
    if (!path.isAbsolute(dir)) continue
    for (const entry of listDir(dir)) {
      const file = path.join(dir, entry, 'bin', 'node')
      const version = entry.startsWith('v') ? entry : `v${entry}`
      if ((major === undefined || parseVersion(version)[0] === major) && isExecutableFile(file)) found.push({ path: file, version })
    }
  }
  return found
}

/**
 * What a binary answers to --version (asked ahead: runtimeResolver's prepare).
 * @param {string} file absolute
 * @param {string} name the app, for the error
 * @param {boolean} node a node binary is wanted (for the error's words)
 * @param {Versions} versions
 * @returns {string}
 */
function versionOf (file, name, node, versions) {
  if (!isExecutableFile(file)) {
    const reason = fs.existsSync(file) ? 'is not an executable file' : 'does not exist'
    throw new SupError('SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { path: file, name, reason })
  }
  const version = versions(file)
  if (version === null) throw new SupError('SUP_ERR_INTERPRETER_NOT_EXECUTABLE', { path: file, name, reason: `failed to run with --version${node ? ' as a node binary would' : ''}` })
  return version
}

/** @param {string} file */
function readVersionFile (file) {
  try {
    const line = fs.readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).find((l) => l !== '' && !l.startsWith('#'))
    return line ?? null
  } catch {
    return null
  }
}

/** @param {string} dir */
function listDir (dir) {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/**
 * @param {string} a
 * @param {string} b
 */
function sameFile (a, b) {
  try {
    return fs.realpathSync(a) === fs.realpathSync(b)
  } catch {
    return false
  }
}

/** @param {string} version "v22.11.0" */
export function parseVersion (version) {
  return version.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10))
}

/**
 * @param {string} a
 * @param {string} b
 */
function compareVersions (a, b) {
  const [x, y] = [parseVersion(a), parseVersion(b)]
  for (let i = 0; i < 3; i++) if ((x[i] ?? 0) !== (y[i] ?? 0)) return (x[i] ?? 0) - (y[i] ?? 0)
  return 0
}

/**
 * What binaries said to --version, each remembered while its file is unchanged (same mtime).
 */
export class VersionCache {
  /** @type {Map<string, { mtimeMs: number, version: string | null }>} */
  #known = new Map()
  /** @type {Map<string, Promise<void>>} */
  #asking = new Map()

  /**
   * What `file` said; when it was not asked since it last changed, what it said before (or
   * null), and `missing` (when given) gets it.
   * @param {string} file
   * @param {Set<string>} [missing]
   * @returns {string | null}
   */
  lookup (file, missing) {
    const known = this.#known.get(file)
    const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs
    if (mtimeMs === undefined) return null
    if (known?.mtimeMs !== mtimeMs) missing?.add(file)
    return known?.version ?? null
  }

  /**
   * Ask `file` (once at a time): a few tens of ms, no environment of the daemon's, stdin closed.
   * @param {string} file
   * @returns {Promise<void>}
   */
  ask (file) {
    const asking = this.#asking.get(file)
    if (asking) return asking
    const mtimeMs = fs.statSync(file, { throwIfNoEntry: false })?.mtimeMs
    const done = new Promise((resolve) => {
      execFile(file, ['--version'], { encoding: 'utf8', env: {}, timeout: VERSION_TIMEOUT_MS }, (err, stdout) => {
        if (mtimeMs !== undefined) this.#known.set(file, { mtimeMs, version: err ? null : stdout.trim() })
        resolve(undefined)
      }).stdin?.end()
    }).finally(() => this.#asking.delete(file))
    this.#asking.set(file, done)
    return done
  }
}

/**
 * @typedef {((config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>) => Runtime | null) & {
 *   prepare: (config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>) => Promise<void> }} RuntimeResolver
 */

/**
 * resolveRuntime with one memory of versions per daemon (daemon/worker/effects.js). `prepare`
 * asks, ahead and asynchronously, every binary resolving `config` will read (found by
 * resolving with what is known until nothing is missing); where a config enters the daemon
 * (start, restore, restart, reload) it is awaited. A resolve that reads a binary not asked
 * since it changed (a crash restart after an in-place upgrade) uses what it said before, and
 * asks it in the background for the next start.
 * @returns {RuntimeResolver}
 */
export function runtimeResolver () {
  const cache = new VersionCache()
  /** @type {RuntimeResolver} */
  const resolve = (config, env) => {
    const missing = new Set()
    try {
      return resolveRuntime(config, env, (file) => cache.lookup(file, missing))
    } finally {
      for (const file of missing) cache.ask(file)
    }
  }
  resolve.prepare = async (config, env) => {
    // Each round asks what the last one found missing; a resolution reads a handful of binaries.
    for (let round = 0; round < 8; round++) {
      /** @type {Set<string>} */
      const missing = new Set()
      try {
        resolveRuntime(config, env, (file) => cache.lookup(file, missing))
      } catch {}
      if (missing.size === 0) return
      await Promise.all([...missing].map((file) => cache.ask(file)))
    }
  }
  return resolve
}
