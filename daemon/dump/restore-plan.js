// @ts-check
// What a daemon does with the dump it finds: pure decisions, table-tested
// (test/unit/daemon/dump/restore-plan.test.js). daemon/dump/persistence.js carries them out.

/**
 * @typedef {import('./format.js').DumpApp} DumpApp
 * @typedef {import('./format.js').DumpDaemon} DumpDaemon
 *
 * How the daemon that wrote the dump ended:
 * - 'stopped': it stopped cleanly (sup kill, SIGTERM): the next daemon starts empty;
 * - 'crashed': it died (kill -9, OOM) on this boot: stop what it left running, then restore;
 * - 'rebooted': it was running when the machine went down: restore, nothing left to stop;
 * - 'alive': it still runs (a pid we cannot tell apart from it): touch nothing.
 * @typedef {'stopped' | 'crashed' | 'rebooted' | 'alive'} PreviousEnd
 *
 * @typedef {'stopped' | 'crashed' | 'rebooted' | 'resurrect'} RestoreMode
 * @typedef {{ restore: DumpApp[], park: DumpApp[], skip: string[] }} RestorePlan
 */

/**
 * @param {DumpDaemon} recorded
 * @param {{ bootId: string | null, previousAlive: boolean }} now previousAlive: the recorded pid
 *   runs with the recorded start time
 * @returns {PreviousEnd}
 */
export function classifyPrevious (recorded, { bootId, previousAlive }) {
  if (recorded.state === 'stopped') return 'stopped'
  if (recorded.boot_id !== null && bootId !== null && recorded.boot_id !== bootId) return 'rebooted'
  if (previousAlive) return 'alive'
  return 'crashed'
}

/**
 * Which apps of the dump to start now, which to keep as saved-but-not-running ("parked", for
 * `sup resurrect`), and which to leave alone because an app of that name already exists.
 * - after a clean stop nothing starts: every app is parked, as PM2 users expect;
 * - after a crash or a reboot the apps that ran are restored, parked ones stay parked;
 * - `sup resurrect` starts every app the dump holds that is not already there, parked or not.
 * An app that exists is never started a second time.
 * @param {DumpApp[]} apps
 * @param {{ mode: RestoreMode, live: ReadonlySet<string> }} options
 * @returns {RestorePlan}
 */
export function planRestore (apps, { mode, live }) {
  /** @type {RestorePlan} */
  const plan = { restore: [], park: [], skip: [] }
  for (const app of apps) {
    if (live.has(app.config.name)) plan.skip.push(app.config.name)
    else if (mode === 'stopped' || (app.parked && mode !== 'resurrect')) plan.park.push({ ...app, parked: true })
    else plan.restore.push(withoutParked(app))
  }
  return plan
}

/**
 * The processes a dead daemon's dump says were running, with what is needed to stop them
 * safely: the start time (a reused pid is never signalled), whether the worker led its own
 * process group (fork mode), and how long it may take to stop.
 * @param {DumpApp[]} apps
 * @returns {Array<{ app: string, instance: number, pid: number, startTime: string, ownGroup: boolean, killTimeout: number }>}
 */
export function recordedWorkers (apps) {
  const found = []
  for (const app of apps) {
    for (const worker of app.workers) {
      if (worker.pid === null || worker.start_time === null) continue
      found.push({
        app: app.config.name,
        instance: worker.instance,
        pid: worker.pid,
        startTime: worker.start_time,
        ownGroup: app.config.exec_mode === 'fork',
        killTimeout: app.config.kill_timeout
      })
    }
  }
  return found
}

/** @param {DumpApp} app */
function withoutParked (app) {
  const { parked, ...rest } = app
  return rest
}

/**
 * The variables a login sets up, none of them a secret, and SUP_HOME (so that a `sup` the app
 * runs reaches this daemon): what an app restored after a crash gets.
 */
const LOGIN_KEYS = ['PATH', 'HOME', 'USER', 'LOGNAME', 'SHELL', 'LANG', 'LANGUAGE', 'TZ', 'TMPDIR', 'SUP_HOME']

/**
 * The environment of an app restored after a crash or a reboot. The shell that started it is
 * gone and was never written to disk, so the app gets only what any login has (PATH, HOME, the
 * locale), taken from the daemon, then its own `env`; never the rest of the daemon's environment,
 * which came from whichever shell happened to start the daemon.
 * @param {NodeJS.ProcessEnv} daemonEnv
 * @returns {Record<string, string>}
 */
export function loginEnv (daemonEnv) {
  /** @type {Record<string, string>} */
  const env = {}
  for (const [key, value] of Object.entries(daemonEnv)) {
    if (value !== undefined && (LOGIN_KEYS.includes(key) || key.startsWith('LC_'))) env[key] = value
  }
  return env
}
