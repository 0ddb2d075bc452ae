// @ts-check
// Two files, two jobs (design §8). state.json is the daemon's own state: kept current after
// every change and read back at start-up to recover from a crash. dump.json is the snapshot
// `sup save` writes and `sup resurrect` reads, as PM2's dump.pm2: `save; delete all;
// resurrect` brings the saved list back. It listens to the supervisor's 'app.state' events
// (every spawn, exit, stop, delete and scale raises one) and writes one state at a time,
// coalescing bursts; nothing else in the daemon needs to know either file exists. It observes
// the supervisor and proposes what to restore (restore-plan.js decides); the Supervisor, the
// registry's one writer, carries the proposal out (Supervisor.restore).
import { EventEmitter } from 'node:events'
import { readFile } from 'node:fs/promises'
import { SupError } from '../../ipc/errors.js'
import { buildDump, workersToSave } from './format.js'
import { loadDump, writeFileAtomic } from './store.js'
import { readProcess } from '../worker/process-tree.js'
import { reapPrevious } from './reap-previous.js'
import { classifyPrevious, loginEnv, planRestore, recordedWorkers } from './restore-plan.js'
import { until } from '../until.js'

/**
 * @typedef {import('./format.js').DumpApp} DumpApp
 *
 * @typedef {object} RestoreProposal apps of a dump to bring back, for the Supervisor to carry out
 * @property {DumpApp[]} apps
 * @property {Record<string, string>} shellEnv what their workers start with
 * @property {{ from: string, at: number }} restored how they came back (`sup ls` shows it)
 */

/** Emits 'written' each time the changes made up to a generation are on disk (or failed). */
export class Persistence extends EventEmitter {
  /**
   * @param {{ file: string, saveFile: string, supervisor: import('../supervisor.js').Supervisor, logger: import('pino').Logger, version: string, now?: () => number, daemonEnv?: NodeJS.ProcessEnv }} options
   *   file: the state kept current; saveFile: the snapshot of `sup save`;
   *   daemonEnv: where the login variables of an app restored after a crash come from
   */
  constructor ({ file, saveFile, supervisor, logger, version, now = Date.now, daemonEnv = {} }) {
    super()
    this.restoredEnv = loginEnv(daemonEnv)
    this.file = file
    this.saveFile = saveFile
    /** Names of the apps in the saved snapshot, for `sup ls`'s "saved but not running". */
    /** @type {string[]} */
    this.saved = []
    this.version = version
    this.now = now
    this.supervisor = supervisor
    this.logger = logger
    /** @type {import('./format.js').DumpDaemon} */
    this.self = { pid: process.pid, start_time: null, boot_id: null, state: 'running' }
    /** @type {{ at: number, end: string, previous_pid: number, apps: string[], stopped: number, killed: number, source: string | null } | null} */
    this.recovery = null
    /** @type {string[]} */
    this.warnings = []
    /** What status({ unreported: true }) has told so far. */
    /** @type {{ recovery: object | null, parked: Set<string>, warnings: number, lastError: string | null }} */
    this.told = { recovery: null, parked: new Set(), warnings: 0, lastError: null }
    /** @type {{ at: number, reason: string } | null} */
    this.lastWrite = null
    /** @type {string | null} */
    this.lastError = null
    this.closed = false
    // Changes are numbered; a write covers every change made before it took its snapshot.
    this.generation = 0
    this.written = 0
    /** @type {Promise<void> | null} */
    this.draining = null
    /** @type {Promise<unknown>} one file operation at a time */
    this.queue = Promise.resolve()
    /** @type {Map<number, string>} */
    this.startTimes = new Map()
    this.onChange = () => this.schedule()
  }

  /**
   * Read the dump; after a crash, stop what the dead daemon left and propose its apps back.
   * @returns {Promise<RestoreProposal | null>}
   */
  async open () {
    this.self.start_time = (await readProcess(process.pid))?.startTime ?? null
    this.self.boot_id = await readFile('/proc/sys/kernel/random/boot_id', 'utf8').then((s) => s.trim(), () => null)
    this.saved = await savedNames(this.saveFile)
    const loaded = await loadDump(this.file)
    for (const warning of loaded.warnings) this.warn(warning)
    this.supervisor.on('app.state', this.onChange)
    if (!loaded.dump) return null
    const { daemon, apps } = loaded.dump
    const previous = daemon.pid === process.pid || daemon.start_time === null ? null : await readProcess(daemon.pid)
    const end = classifyPrevious(daemon, { bootId: this.self.boot_id, previousAlive: previous?.startTime === daemon.start_time && previous?.state !== 'Z' })
    if (end === 'alive') this.warn(`the daemon that wrote ${loaded.source} (pid ${daemon.pid}) still runs; its apps were not restored`)
    const reaped = end === 'crashed' ? await reapPrevious({ workers: recordedWorkers(apps), daemon, logger: this.logger }) : { stopped: 0, killed: 0 }
    const plan = planRestore(apps, { mode: end === 'alive' ? 'stopped' : end, live: new Set(this.supervisor.apps.keys()) })
    // Apps parked by an older sup (one file for both jobs) are in its dump.json, which
    // `sup resurrect` reads: the state forgets them.
    if (plan.restore.length === 0) return null
    const at = this.now()
    this.recovery = { at, end, previous_pid: daemon.pid, apps: plan.restore.map((a) => a.config.name), ...reaped, source: loaded.source }
    this.logger.warn({ ...this.recovery, at: undefined }, end === 'crashed' ? 'the previous daemon died; restored its apps' : 'the machine restarted without a clean stop; restored the apps')
    return { apps: plan.restore, shellEnv: this.restoredEnv, restored: { from: end, at } }
  }

  /**
   * What `sup resurrect` would bring back: what the saved snapshot holds that is not there yet
   * (apps that exist are left alone), for the Supervisor to carry out.
   * @param {Record<string, string>} shellEnv the caller's environment, as for `sup start`
   * @returns {Promise<{ file: string, source: string | null, skipped: unknown[], warnings: string[], restore: RestoreProposal }>}
   */
  async proposeResurrect (shellEnv) {
    if (this.closed) throw new SupError('SUP_ERR_DAEMON_SHUTTING_DOWN')
    const loaded = await loadDump(this.saveFile)
    const told = this.warnings.length
    for (const warning of loaded.warnings) this.warn(warning)
    const restored = { from: 'resurrect', at: this.now() }
    if (!loaded.dump) return { file: this.saveFile, source: null, skipped: [], warnings: loaded.warnings, restore: { apps: [], shellEnv, restored } }
    const plan = planRestore(loaded.dump.apps, { mode: 'resurrect', live: new Set(this.supervisor.apps.keys()) })
    // The caller prints its own warnings: `sup ls` need not repeat them.
    if (this.told.warnings >= told) this.told.warnings = this.warnings.length
    return { file: this.saveFile, source: loaded.source, skipped: plan.skip, warnings: loaded.warnings, restore: { apps: plan.restore, shellEnv, restored } }
  }

  /**
   * `sup save`: the apps that exist now become the snapshot `sup resurrect` reads.
   * @param {{ force?: boolean }} options
   */
  save ({ force = false }) {
    if (this.closed) return Promise.reject(new SupError('SUP_ERR_DAEMON_SHUTTING_DOWN'))
    return this.exclusive(async () => {
      const live = await this.snapshot()
      if (live.length === 0 && !force) {
        const saved = await countSavedApps(this.saveFile)
        if (saved !== 0) throw new SupError('SUP_ERR_DUMP_EMPTY_OVERWRITE', { file: this.saveFile, count: saved ?? 'unknown' })
      }
      await this.write(live, 'save', 'running', this.saveFile)
      this.saved = live.map((a) => a.config.name)
      return { file: this.saveFile, apps: live.map((a) => a.config.name), workers: live.reduce((n, a) => n + a.workers.length, 0) }
    })
  }

  /**
   * What `sup ls` tells people about the dump. `unreported`: only what no caller was told yet
   * (a recovery, newly parked apps, new warnings, a new write error), which is then marked
   * told, so a note comes once, on the first listing after it happened, not on every one.
   * @param {{ unreported?: boolean }} [options]
   */
  status ({ unreported = false } = {}) {
    const parked = this.saved.filter((name) => !this.supervisor.apps.has(name))
    const status = {
      file: this.file,
      save_file: this.saveFile,
      recovery: this.recovery,
      parked,
      warnings: this.warnings,
      last_write: this.lastWrite,
      last_error: this.lastError
    }
    if (!unreported) return status
    const { told } = this
    this.told = { recovery: this.recovery, parked: new Set(parked), warnings: this.warnings.length, lastError: this.lastError }
    return {
      ...status,
      recovery: told.recovery === this.recovery ? null : this.recovery,
      parked: parked.some((name) => !told.parked.has(name)) ? parked : [],
      warnings: this.warnings.slice(told.warnings),
      last_error: told.lastError === this.lastError ? null : this.lastError
    }
  }

  /**
   * Resolves once every change made so far is on disk (or could not be written).
   * @returns {Promise<void>}
   */
  idle () {
    const target = this.generation
    return until(this, () => this.written >= target || this.closed, undefined, 'written')
  }

  /**
   * Daemon shutdown: take the snapshot now, before the workers are stopped, and return the
   * function that writes it marked as cleanly stopped.
   */
  beginShutdown () {
    this.closed = true
    this.supervisor.off('app.state', this.onChange)
    this.wake()
    const snapshot = this.snapshot()
    return async () => {
      const apps = await snapshot
      // A daemon that never had anything to save leaves no dump behind.
      if (apps.length === 0 && this.lastWrite === null && await countSavedApps(this.file) === 0) return
      await this.exclusive(() => this.write(apps, 'shutdown', 'stopped')).catch(() => {})
    }
  }

  schedule () {
    if (this.closed) return
    this.generation++
    this.draining ??= this.drain()
  }

  async drain () {
    // Let a burst of changes (a start of 8 workers raises 16 events) land first.
    await new Promise((resolve) => setImmediate(resolve))
    while (this.written < this.generation && !this.closed) {
      const target = this.generation
      await this.exclusive(async () => this.write(await this.snapshot(), 'change', 'running')).catch(() => {})
      this.written = target
      this.wake()
    }
    this.draining = null
  }

  wake () {
    this.emit('written')
  }

  /**
   * @template T
   * @param {() => Promise<T>} fn
   * @returns {Promise<T>}
   */
  exclusive (fn) {
    const result = this.queue.then(fn)
    this.queue = result.catch(() => {})
    return result
  }

  /**
   * @param {DumpApp[]} apps
   * @param {string} reason
   * @param {'running' | 'stopped'} state
   * @param {string} [file] the state file, unless `sup save` writes its snapshot
   */
  async write (apps, reason, state, file = this.file) {
    const doc = buildDump({ apps, daemon: { ...this.self, state }, version: this.version, reason, now: this.now() })
    try {
      await writeFileAtomic(file, JSON.stringify(doc, null, 2) + '\n')
    } catch (err) {
      const message = /** @type {Error} */ (err).message
      if (message !== this.lastError) this.logger.error({ err, file }, 'cannot write the process list')
      this.lastError = message
      throw err
    }
    this.lastWrite = { at: this.now(), reason }
    this.lastError = null
  }

  /**
   * The apps as they are, with the start time of every running worker (read once per pid).
   * Worker states are read synchronously, before the first await.
   * @returns {Promise<DumpApp[]>}
   */
  async snapshot () {
    /** @type {DumpApp[]} */
    const apps = []
    const reads = []
    for (const app of this.supervisor.apps.values()) {
      const workers = workersToSave(app.workers)
      for (const entry of workers) {
        const worker = app.workers.find((w) => w.instance === entry.instance && w.state.pid === entry.pid)
        if (worker && entry.pid !== null) reads.push(this.readStartTime(worker, entry))
      }
      if (workers.length > 0) apps.push({ config: app.config, workers })
    }
    await Promise.all(reads)
    const pids = new Set(apps.flatMap((a) => a.workers.map((w) => w.pid)))
    for (const pid of this.startTimes.keys()) if (!pids.has(pid)) this.startTimes.delete(pid)
    return apps
  }

  /**
   * @param {import('../worker/worker.js').Worker} worker
   * @param {import('./format.js').DumpWorker} entry
   */
  async readStartTime (worker, entry) {
    const pid = /** @type {number} */ (entry.pid)
    const startTime = this.startTimes.get(pid) ?? (await readProcess(pid))?.startTime
    // A pid that is no longer this worker's may belong to someone else by now: record none.
    if (worker.state.pid !== pid || !startTime) {
      entry.pid = null
      return
    }
    this.startTimes.set(pid, startTime)
    entry.start_time = startTime
  }

  /** @param {string} message */
  warn (message) {
    this.warnings.push(message)
    this.logger.warn(message)
  }
}

/**
 * The names of the apps a saved snapshot holds (none when it is missing or unreadable: the
 * warning comes when `sup resurrect` reads it).
 * @param {string} file
 * @returns {Promise<string[]>}
 */
async function savedNames (file) {
  try {
    const doc = JSON.parse(await readFile(file, 'utf8'))
    return Array.isArray(doc?.apps) ? doc.apps.map((/** @type {any} */ a) => a?.config?.name).filter((/** @type {unknown} */ n) => typeof n === 'string') : []
  } catch {
    return []
  }
}

/**
 * How many apps the dump on disk holds: 0 when there is none, null when it cannot be read.
 * @param {string} file
 */
async function countSavedApps (file) {
  try {
    const doc = JSON.parse(await readFile(file, 'utf8'))
    return Array.isArray(doc?.apps) ? doc.apps.length : null
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT' ? 0 : null
  }
}
