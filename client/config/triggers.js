// @ts-check
// The options that restart an app by themselves: cron_restart (checked here, at `sup start`,
// so a typo is a one-line error and not a schedule that never fires) and watch/ignore_watch.
import fs from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { SupError } from '../../ipc/errors.js'

// croner is loaded by the first cron expression to check: every `sup start` loads this file.
const require = createRequire(import.meta.url)

/**
 * A cron expression of 5 fields (minute first), or 6 with seconds first, as PM2 takes them.
 * @param {unknown} value
 * @returns {string | null}
 */
export function parseCronRestart (value) {
  if (value == null || value === '') return null
  if (typeof value !== 'string') throw new SupError('SUP_ERR_CRON_INVALID_EXPRESSION', { value: JSON.stringify(value), reason: 'it must be a string' })
  const expression = value.trim()
  /** @type {typeof import('croner')} */
  const { Cron } = require('croner')
  try {
    // Paused: nothing is scheduled in the CLI; this only parses.
    new Cron(expression, { paused: true, mode: '5-or-6-parts' }).stop()
  } catch (err) {
    const reason = String(/** @type {Error} */ (err).message).replace(/^CronPattern: /, '').replace(/\.$/, '')
    throw new SupError('SUP_ERR_CRON_INVALID_EXPRESSION', { value, reason })
  }
  return expression
}

/**
 * PM2's watch: true (the app's cwd), or a path or list of paths relative to the cwd.
 * @param {unknown} value raw.watch
 * @param {string} cwd absolute
 * @returns {{ watch: boolean, watch_paths: string[] }}
 */
export function parseWatch (value, cwd) {
  if (value == null || value === '' || value === false || value === true) return { watch: value === true, watch_paths: [] }
  if (typeof value === 'string' && /^(true|false)$/i.test(value.trim())) return { watch: value.trim().toLowerCase() === 'true', watch_paths: [] }
  const list = typeof value === 'string' ? value.split(',').map((p) => p.trim()).filter(Boolean) : value
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && p !== '')) {
    throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option: 'watch', value: JSON.stringify(value), reason: 'use true, a path, or a list of paths' })
  }
  const paths = list.map((p) => path.resolve(cwd, p))
  for (const file of paths) {
    if (!fs.existsSync(file)) throw new SupError('SUP_ERR_WATCH_PATH_NOT_FOUND', { path: file, cwd })
  }
  return { watch: paths.length > 0, watch_paths: paths }
}

/**
 * ignore_watch: a glob or path, or a list of them (PM2 also splits a string on spaces or commas).
 * @param {unknown} value
 * @returns {string[]}
 */
export function parseIgnoreWatch (value) {
  if (value == null || value === '') return []
  const list = typeof value === 'string' ? value.split(/[\s,]+/).filter(Boolean) : value
  if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && p !== '')) {
    throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option: 'ignore_watch', value: JSON.stringify(value), reason: 'use a glob or path, or a list of them (e.g. ["logs", "*.tmp"])' })
  }
  return list
}
