// @ts-check
// The daemon-wide log rotation settings, for apps that do not set their own. Read once at
// daemon start from SUP_LOG_MAX_SIZE, SUP_LOG_RETAIN and SUP_LOG_COMPRESS.
import { parseBytes } from '../../ipc/units.js'

/** On by default: 10 MiB per file and 5 rotated files keep a chatty app near 60 MiB per stream. */
export const LOG_DEFAULTS = Object.freeze(/** @type {LogRotation} */ ({ maxSize: 10 * 1024 * 1024, retain: 5, compress: false }))

/** @typedef {{ maxSize: number, retain: number, compress: boolean }} LogRotation */

/**
 * @param {NodeJS.ProcessEnv} env
 * @param {(message: string) => void} warn told about a value that cannot be read (the default is used)
 * @returns {LogRotation}
 */
export function readLogDefaults (env, warn) {
  /** @type {LogRotation} */
  const rotation = { ...LOG_DEFAULTS }
  if (env.SUP_LOG_MAX_SIZE) {
    try {
      rotation.maxSize = parseBytes(env.SUP_LOG_MAX_SIZE, 'SUP_LOG_MAX_SIZE', { allowZero: true })
    } catch (err) {
      warn(/** @type {Error} */ (err).message)
    }
  }
  if (env.SUP_LOG_RETAIN) {
    if (/^\d+$/.test(env.SUP_LOG_RETAIN.trim())) rotation.retain = Number(env.SUP_LOG_RETAIN)
    else warn(`invalid SUP_LOG_RETAIN "${env.SUP_LOG_RETAIN}": use a whole number, 0 or more`)
  }
  if (env.SUP_LOG_COMPRESS) {
    const text = env.SUP_LOG_COMPRESS.trim().toLowerCase()
    if (text === 'true' || text === '1') rotation.compress = true
    else if (text === 'false' || text === '0') rotation.compress = false
    else warn(`invalid SUP_LOG_COMPRESS "${env.SUP_LOG_COMPRESS}": use true or false`)
  }
  return rotation
}

/**
 * An app's own settings over the daemon's.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {LogRotation} defaults
 * @returns {LogRotation}
 */
export function rotationFor (config, defaults) {
  return {
    maxSize: config.log_max_size ?? defaults.maxSize,
    retain: config.log_retain ?? defaults.retain,
    compress: config.log_compress ?? defaults.compress
  }
}
