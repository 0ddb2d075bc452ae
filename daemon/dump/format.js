// @ts-check
// What dump.json holds, and reading it back defensively: pure functions, no I/O.
// Only an app's own config is written (its `env` included); the shell environment a CLI sent
// along with `sup start` stays in the daemon's memory (docs/persistence.md).
import { APP_CONFIG_SCHEMA, APP_DEFAULTS } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { validate } from '../../ipc/schema.js'
import { STATUS } from '../worker/lifecycle.js'

/** Bumped only for changes an older sup could misread; new config keys do not need it. */
export const DUMP_FORMAT = 1

/**
 * @typedef {{ instance: number, run: boolean, pid: number | null, start_time: string | null }} DumpWorker
 * @typedef {{ config: import('../../ipc/app-config.js').AppConfig, workers: DumpWorker[], parked?: boolean }} DumpApp
 * @typedef {{ pid: number, start_time: string | null, boot_id: string | null, state: 'running' | 'stopped' }} DumpDaemon
 * @typedef {object} Dump
 * @property {number} sup_dump the format, DUMP_FORMAT
 * @property {string} version the sup version that wrote it
 * @property {string} saved_at ISO time
 * @property {string} reason what made the daemon write it
 * @property {DumpDaemon} daemon
 * @property {DumpApp[]} apps
 */

const CONFIG_KEYS = Object.keys(/** @type {{ properties: object }} */ (APP_CONFIG_SCHEMA).properties)

/**
 * Should this worker run after a restore? Yes for every state on the way to running or
 * retrying; no for a worker stopped on purpose; null for one being deleted (it is left out).
 * @param {Pick<import('../worker/lifecycle.js').WorkerState, 'status' | 'afterStop'>} state
 * @returns {boolean | null}
 */
export function wantsToRun (state) {
  if (state.afterStop === 'remove') return null
  if (state.status === STATUS.STOPPED) return false
  if (state.status === STATUS.STOPPING) return state.afterStop === 'start'
  return true
}

/**
 * One dump entry per instance. While a reload replaces a worker, the old and the new one share
 * an instance number (and a retiring one is being removed): the app is saved with its
 * instances, not with the momentary surge.
 * @param {Array<{ instance: number, state: Pick<import('../worker/lifecycle.js').WorkerState, 'status' | 'afterStop' | 'pid'> }>} workers
 * @returns {DumpWorker[]}
 */
export function workersToSave (workers) {
  /** @type {Map<number, DumpWorker>} */
  const byInstance = new Map()
  for (const { instance, state } of workers) {
    const run = wantsToRun(state)
    if (run === null) continue
    const seen = byInstance.get(instance)
    if (seen && (seen.run || !run)) continue
    byInstance.set(instance, { instance, run, pid: state.pid, start_time: null })
  }
  return [...byInstance.values()].sort((a, b) => a.instance - b.instance)
}

/**
 * Only the keys of the config schema: a runtime field that strays onto a config never reaches disk.
 * @param {Record<string, unknown>} config
 */
export function pickConfig (config) {
  /** @type {Record<string, unknown>} */
  const out = {}
  for (const key of CONFIG_KEYS) if (config[key] !== undefined) out[key] = config[key]
  return /** @type {import('../../ipc/app-config.js').AppConfig} */ (out)
}

/**
 * @param {{ apps: DumpApp[], daemon: DumpDaemon, version: string, reason: string, now: number }} parts
 * @returns {Dump}
 */
export function buildDump ({ apps, daemon, version, reason, now }) {
  return {
    sup_dump: DUMP_FORMAT,
    version,
    saved_at: new Date(now).toISOString(),
    reason,
    daemon,
    apps: apps.map((app) => ({
      config: pickConfig({ ...app.config, instances: app.workers.length }),
      workers: app.workers.map(({ instance, run, pid, start_time: startTime }) => ({ instance, run, pid, start_time: startTime })),
      ...(app.parked ? { parked: true } : {})
    }))
  }
}

/**
 * Read a dump's text. A file that cannot be a dump at all throws SUP_ERR_DUMP_CORRUPT; an app
 * entry that does not validate (hand-edited, or written by a different sup) is left out and
 * named in `skipped`, so one bad entry does not cost the others.
 * @param {string} text
 * @param {string} file for messages
 * @returns {{ dump: Dump, skipped: string[] }}
 */
export function parseDump (text, file) {
  /** @type {any} */
  let doc
  try {
    doc = JSON.parse(text)
  } catch (err) {
    const reason = text.trim() === '' ? 'the file is empty' : `not JSON (${/** @type {Error} */ (err).message}), it may be truncated`
    throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason }, { cause: err })
  }
  if (!isObject(doc) || doc.sup_dump === undefined) throw corrupt(file, 'it is not a sup dump (no "sup_dump" field)')
  if (doc.sup_dump !== DUMP_FORMAT) throw corrupt(file, `it has format ${JSON.stringify(doc.sup_dump)}, this sup reads format ${DUMP_FORMAT}`)
  if (!Array.isArray(doc.apps)) throw corrupt(file, '"apps" is not a list')
  const daemon = parseDaemon(doc.daemon)
  if (!daemon) throw corrupt(file, '"daemon" is missing or malformed')

  /** @type {DumpApp[]} */
  const apps = []
  const skipped = []
  const names = new Set()
  for (const [index, entry] of doc.apps.entries()) {
    const result = parseApp(entry)
    const name = isObject(entry) && isObject(entry.config) && typeof entry.config.name === 'string' ? entry.config.name : `#${index}`
    if (typeof result === 'string') skipped.push(`app ${name}: ${result}`)
    else if (names.has(result.config.name)) skipped.push(`app ${name}: listed twice`)
    else {
      names.add(result.config.name)
      apps.push(result)
    }
  }
  return {
    dump: { sup_dump: DUMP_FORMAT, version: String(doc.version ?? ''), saved_at: String(doc.saved_at ?? ''), reason: String(doc.reason ?? ''), daemon, apps },
    skipped
  }
}

/**
 * @param {unknown} entry
 * @returns {DumpApp | string} the app, or what is wrong with it
 */
function parseApp (entry) {
  if (!isObject(entry) || !isObject(entry.config)) return 'no "config" object'
  // Keys added to the config after the dump was written take their defaults; keys this sup
  // no longer knows are dropped, so a dump survives an upgrade in either direction.
  const config = pickConfig({ ...APP_DEFAULTS, ...entry.config })
  const problem = validate(APP_CONFIG_SCHEMA, config, 'config')
  if (problem) return problem
  const workers = entry.workers === undefined
    ? Array.from({ length: config.instances }, (_, instance) => ({ instance, run: true, pid: null, start_time: null }))
    : entry.workers
  if (!Array.isArray(workers) || workers.length === 0 || workers.length > 1024) return '"workers" must be a list of 1 to 1024 entries'
  /** @type {DumpWorker[]} */
  const parsed = []
  for (const w of workers) {
    if (!isObject(w) || !Number.isInteger(w.instance) || w.instance < 0 || typeof w.run !== 'boolean') return 'a worker needs an integer "instance" and a boolean "run"'
    const pid = Number.isInteger(w.pid) && w.pid > 0 ? w.pid : null
    parsed.push({ instance: w.instance, run: w.run, pid, start_time: pid !== null && typeof w.start_time === 'string' ? w.start_time : null })
  }
  parsed.sort((a, b) => a.instance - b.instance)
  return { config: /** @type {import('../../ipc/app-config.js').AppConfig} */ ({ ...config, instances: parsed.length }), workers: parsed, ...(entry.parked === true ? { parked: true } : {}) }
}

/**
 * @param {unknown} value
 * @returns {DumpDaemon | null}
 */
function parseDaemon (value) {
  if (!isObject(value) || !Number.isInteger(value.pid) || (value.state !== 'running' && value.state !== 'stopped')) return null
  return {
    pid: value.pid,
    start_time: typeof value.start_time === 'string' ? value.start_time : null,
    boot_id: typeof value.boot_id === 'string' ? value.boot_id : null,
    state: value.state
  }
}

/**
 * @param {string} file
 * @param {string} reason
 */
function corrupt (file, reason) {
  return new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason })
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject (value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
