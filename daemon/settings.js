// @ts-check
// `sup set <app>.<key> <value>` (PM2's `pm2 set`): values kept per app name in
// $SUP_HOME/settings.json, given to that app's workers as environment variables over its
// own `env`, whenever an app of that name runs, across restarts of the daemon. PM2 keeps the
// same in module_conf.json and hands a module its values as environment variables.
import { renameSync } from 'node:fs'
import { readOwnFileSync } from '../ipc/safe-fs.js'
import { writeFileAtomic } from './dump/store.js'

/** Far more than any settings a person types; a bigger file is not read. */
const SETTINGS_MAX_BYTES = 16 * 1024 * 1024

/** @typedef {Record<string, Record<string, string>>} SettingsData app name → key → value */

export class Settings {
  /**
   * @param {object} options
   * @param {string} options.file settings.json
   * @param {import('pino').Logger} options.logger
   */
  constructor ({ file, logger }) {
    this.file = file
    /** @type {SettingsData} */
    this.data = readSettings(file, logger)
    // one write at a time, in the order of the changes
    /** @type {Promise<void>} */
    this.writing = Promise.resolve()
  }

  /**
   * The variables an app of this name gets.
   * @param {string} app
   * @returns {Record<string, string>}
   */
  of (app) {
    return Object.hasOwn(this.data, app) ? this.data[app] : {}
  }

  /**
   * Set several keys at once, then write the file once.
   * @param {Array<{ app: string, key: string, value: string }>} entries
   */
  set (entries) {
    return this.change((data) => {
      for (const { app, key, value } of entries) {
        data[app] = Object.assign(Object.create(null), data[app], { [key]: value })
      }
    })
  }

  /**
   * @param {string} app
   * @param {string | null} key null: every key of the app
   * @returns {Promise<string[]>} the keys removed
   */
  async unset (app, key) {
    /** @type {string[]} */
    let removed = []
    await this.change((data) => {
      const before = Object.hasOwn(data, app) ? data[app] : {}
      removed = key === null ? Object.keys(before) : Object.hasOwn(before, key) ? [key] : []
      if (removed.length === 0) return false
      const rest = Object.assign(Object.create(null), Object.fromEntries(Object.entries(before).filter(([k]) => !removed.includes(k))))
      if (Object.keys(rest).length === 0) delete data[app]
      else data[app] = rest
    })
    return removed
  }

  /**
   * Apply `edit` to a copy, write the copy, and only then make it the settings: a write that
   * fails (a full disk) changes nothing, here or at the next start (issue 19). One change at a
   * time, each on the result of the one before.
   * @param {(data: SettingsData) => boolean | void} edit false: nothing changed, nothing to write
   */
  change (edit) {
    const next = this.writing.catch(() => {}).then(async () => {
      const data = Object.assign(Object.create(null), this.data)
      if (edit(data) === false) return
      await writeFileAtomic(this.file, `${JSON.stringify(data, null, 2)}\n`)
      this.data = data
    })
    this.writing = next
    return next
  }
}

/**
 * settings.json, or nothing: a file that cannot be read is moved aside and logged, never fatal.
 * @param {string} file
 * @param {import('pino').Logger} logger
 * @returns {SettingsData}
 */
function readSettings (file, logger) {
  let text
  try {
    text = readOwnFileSync(file, SETTINGS_MAX_BYTES)
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') logger.warn({ err, file }, 'cannot read the settings; starting without them')
    return Object.create(null)
  }
  try {
    return validSettings(JSON.parse(text))
  } catch (err) {
    const aside = `${file}.corrupt`
    try { renameSync(file, aside) } catch {}
    logger.warn({ err, file, aside }, 'the settings file is not valid; moved it aside, starting without settings')
    return Object.create(null)
  }
}

/**
 * @param {unknown} value
 * @returns {SettingsData}
 */
export function validSettings (value) {
  if (!isRecord(value)) throw new TypeError('not an object of apps')
  // no prototype: an app may be named __proto__ or constructor
  /** @type {SettingsData} */
  const data = Object.create(null)
  for (const [app, keys] of Object.entries(value)) {
    if (!isRecord(keys) || !Object.values(keys).every((v) => typeof v === 'string')) throw new TypeError(`the settings of "${app}" are not an object of strings`)
    data[app] = Object.assign(Object.create(null), keys)
  }
  return data
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, unknown>}
 */
function isRecord (value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
