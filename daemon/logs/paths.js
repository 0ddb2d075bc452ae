// @ts-check
// Where each stream of each instance is written (design §7): the app's own paths or
// $SUP_HOME/logs/<name>-out.log / -err.log (-error.log in PM2's home) / <name>.log, one file per
// instance unless merge_logs.
import { basename, extname, join } from 'node:path'
import { resolvePaths } from '../../ipc/paths.js'

export const DISABLED = '/dev/null'

/** @typedef {'out' | 'err' | 'combined'} LogTarget */

/**
 * The file an instance's stream goes to, or DISABLED.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {string} logsDir
 * @param {LogTarget} target 'combined' is PM2's log_file: stdout and stderr together
 * @param {number} instance
 */
export function logPathFor (config, logsDir, target, instance) {
  const custom = target === 'out' ? config.out_file : target === 'err' ? config.error_file : config.log_file
  if (target === 'combined' && (custom === null || custom === false)) return DISABLED
  if (custom === DISABLED || custom === 'NULL') return DISABLED
  const base = typeof custom === 'string' ? custom : join(logsDir, target === 'combined' ? `${config.name}.log` : `${config.name}-${target === 'err' ? errorLogSuffix(logsDir) : target}.log`)
  const perInstance = !config.merge_logs && (config.exec_mode === 'cluster' || config.instances > 1)
  if (!perInstance) return base
  const ext = extname(base)
  return join(base.slice(0, base.length - basename(base).length), `${basename(base, ext)}-${instance}${ext}`)
}

/**
 * PM2 7 names an app's error log `<name>-error.log`, which `~/.pm2/logs/*-error.log` tails and
 * log shippers expect; in PM2's home (SUP_HOME=~/.pm2, ipc/paths.js) sup's logs take that
 * name. Elsewhere design §7's `-err`.
 * @param {string} logsDir
 */
function errorLogSuffix (logsDir) {
  const paths = resolvePaths(process.env)
  return paths.layout === 'pm2' && paths.logs === logsDir ? 'error' : 'err'
}

/**
 * The files a line from `stream` goes to: its own, and the combined one when set.
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {string} logsDir
 * @param {'out' | 'err'} stream
 * @param {number} instance
 * @returns {string[]} without DISABLED, without duplicates
 */
export function logTargetsFor (config, logsDir, stream, instance) {
  const paths = [logPathFor(config, logsDir, stream, instance), logPathFor(config, logsDir, 'combined', instance)]
  return [...new Set(paths.filter((path) => path !== DISABLED))]
}
