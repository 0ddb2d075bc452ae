// @ts-check
// Daemon-wide settings, from the daemon's own argv (foreground use) or the environment the
// CLI starts it with (SUP_SAMPLE_INTERVAL=500 sup ping). Read once, at start.
import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { SupError } from '../ipc/errors.js'
import { DEFAULT_METRICS_HOST, parsePort } from '../ipc/metrics.js'

export const DEFAULT_SAMPLE_INTERVAL = 1000
const MIN_SAMPLE_INTERVAL = 100
const MAX_SAMPLE_INTERVAL = 3_600_000

/**
 * @typedef {object} DaemonOptions
 * @property {number} sampleInterval ms; 0 = no sampling (and no figures, no memory restarts)
 * @property {{ port: number, host: string } | null} metrics the Prometheus endpoint to open at start
 * @property {boolean} shutdownWithMessage stop every node worker with a "shutdown" message, as
 *   the app setting shutdown_with_message does for one app (PM2's PM2_KILL_USE_MESSAGE)
 * @property {string | null} pidFile a second copy of the daemon's pid (SUP_PID_FILE, PM2's PM2_PID_FILE_PATH), absolute
 */

/**
 * @param {string[]} argv the daemon's arguments (after the script)
 * @param {NodeJS.ProcessEnv} env
 * @param {string} [home] SUP_HOME, against which a relative pid file path is resolved
 * @returns {DaemonOptions}
 * @throws {SupError}
 */
export function readDaemonOptions (argv, env, home = process.cwd()) {
  const { values } = parseArgs({
    args: argv,
    options: {
      'sample-interval': { type: 'string' },
      'metrics-port': { type: 'string' },
      'metrics-host': { type: 'string' }
    },
    strict: false
  })
  const interval = String(values['sample-interval'] ?? env.SUP_SAMPLE_INTERVAL ?? DEFAULT_SAMPLE_INTERVAL)
  const sampleInterval = Number(interval)
  if (!/^\d+$/.test(interval) || (sampleInterval !== 0 && (sampleInterval < MIN_SAMPLE_INTERVAL || sampleInterval > MAX_SAMPLE_INTERVAL))) {
    throw new SupError('SUP_ERR_METRICS_INTERVAL_INVALID', { value: interval })
  }
  const port = values['metrics-port'] ?? env.SUP_METRICS_PORT
  const host = String(values['metrics-host'] ?? env.SUP_METRICS_HOST ?? DEFAULT_METRICS_HOST)
  const shutdownWithMessage = isOn(env.SUP_SHUTDOWN_WITH_MESSAGE ?? env.PM2_KILL_USE_MESSAGE)
  const pidFile = env.SUP_PID_FILE || env.PM2_PID_FILE_PATH
  return {
    sampleInterval,
    metrics: port === undefined || port === '' ? null : { port: parsePort(String(port)), host },
    shutdownWithMessage,
    // relative to SUP_HOME, the daemon's working folder
    pidFile: pidFile ? resolve(home, pidFile) : null
  }
}

/**
 * A switch in the environment is on when set to anything but "", "0" or "false" (PM2 takes
 * even "false" as on).
 * @param {string | undefined} value
 */
function isOn (value) {
  return value !== undefined && !['', '0', 'false'].includes(value.trim().toLowerCase())
}
