// @ts-check
// sup set | unset | multiset | get | conf | config: PM2's `pm2 set <app>.<key> <value>`.
// A value set for an app is an environment variable of its workers (over the app's own env),
// kept in $SUP_HOME/settings.json across restarts; setting one restarts the app, as in PM2.
// PM2's own settings (`pm2:...`) and its modules' have nothing to map to, except pm2-logrotate,
// whose settings are built in under other names: those get a pointer.
import { APP_NAME_PATTERN } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { connectDaemon } from '../daemon.js'
import { MASK, secretKeyTest } from '../mask-secrets.js'
import { escapeControls } from '../../ipc/terminal-text.js'

/** pm2-logrotate's keys and where sup takes the same setting. */
const LOGROTATE = {
  max_size: 'log_max_size in the app config, or SUP_LOG_MAX_SIZE for the daemon',
  retain: 'log_retain in the app config, or SUP_LOG_RETAIN for the daemon',
  compress: 'log_compress in the app config, or SUP_LOG_COMPRESS for the daemon'
}

/**
 * `echo.config_var` or `echo:config_var` → app and key (the key may hold more dots); a word
 * alone is an app (`sup unset echo`, `sup get echo`).
 * @param {string} raw
 * @returns {{ app: string, key: string | null }}
 */
export function parseKey (raw) {
  const at = raw.search(/[.:]/)
  const app = at === -1 ? raw : raw.slice(0, at)
  const key = at === -1 ? null : raw.slice(at + 1)
  if (app === 'pm2-logrotate') {
    const instead = key !== null && key in LOGROTATE
      ? `sup rotates logs itself: use ${LOGROTATE[/** @type {keyof typeof LOGROTATE} */ (key)]} (docs/logs.md)`
      : 'sup rotates logs itself, by size only, with no such setting (docs/logs.md)'
    throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `sup set ${raw}`, reason: instead })
  }
  if (app === 'pm2') {
    throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `sup set ${raw}`, reason: 'PM2\'s own settings have no sup counterpart; docs/pm2.md lists what replaces each PM2 feature' })
  }
  if (!APP_NAME_PATTERN.test(app) || key === '' || (key !== null && /[=\0]/.test(key))) {
    throw new SupError('SUP_ERR_SETTINGS_KEY_INVALID', { key: raw })
  }
  return { app, key }
}

/**
 * PM2's multiset: "key value key value ...", a value in double quotes may hold spaces.
 * @param {string} serial
 * @returns {Array<{ app: string, key: string, value: string }>}
 */
export function parsePairs (serial) {
  const words = (serial.match(/(?:[^ "]+|"[^"]*")+/g) ?? []).map((w) => w.replace(/"/g, ''))
  if (words.length === 0 || words.length % 2 !== 0) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `sup multiset takes "<app>.<key> <value> ...", pairs of words; got "${serial}"` })
  }
  const entries = []
  for (let i = 0; i < words.length; i += 2) entries.push(setEntry(words[i], words[i + 1]))
  return entries
}

/**
 * @param {string} raw
 * @param {string | undefined} value
 */
function setEntry (raw, value) {
  const { app, key } = parseKey(raw)
  if (key === null) throw new SupError('SUP_ERR_SETTINGS_KEY_INVALID', { key: raw })
  if (value === undefined) throw new SupError('SUP_ERR_CLI_USAGE', { reason: `sup set ${raw} needs a value (sup unset ${raw} removes it)` })
  return { app, key, value }
}

/**
 * What a verb asks of the daemon, checked before a daemon is started for nothing.
 * @param {string} verb set, unset, multiset, get, conf, config
 * @param {string | undefined} first
 * @param {string | undefined} second
 * @returns {{ method: 'settings.set', entries: Array<{ app: string, key: string, value: string }> } | { method: 'settings.unset' | 'settings.get', app: string | null, key: string | null }}
 */
export function requestOf (verb, first, second) {
  if (verb === 'multiset') return { method: 'settings.set', entries: parsePairs(first ?? '') }
  if (verb === 'set' || (second !== undefined && (verb === 'conf' || verb === 'config'))) {
    if (first === undefined) throw new SupError('SUP_ERR_SETTINGS_KEY_INVALID', { key: '' })
    return { method: 'settings.set', entries: [setEntry(first, second)] }
  }
  if (verb === 'unset') {
    if (first === undefined) throw new SupError('SUP_ERR_SETTINGS_KEY_INVALID', { key: '' })
    return { method: 'settings.unset', ...parseKey(first) }
  }
  return { method: 'settings.get', ...(first === undefined ? { app: null, key: null } : parseKey(first)) }
}

/**
 * @param {string} verb set, unset, multiset, get, conf, config
 * @param {Array<string | undefined>} args
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (verb, args, { paths, io, opts = {} }) {
  const isSecret = opts.reveal ? () => false : secretKeyTest(io.env)
  const show = (/** @type {string} */ key, /** @type {string} */ value) => escapeControls(isSecret(key) ? MASK : value)
  const asked = requestOf(verb, args[0], args[1])
  const conn = await connectDaemon(paths, { start: true })
  try {
    if (asked.method === 'settings.set') {
      const { entries } = asked
      const result = await conn.request('settings.set', { entries })
      for (const e of entries) io.out(`${e.app}.${e.key} = ${show(e.key, e.value)}`)
      for (const app of new Set(entries.map((e) => e.app))) {
        io.out(result.restarted.includes(app) ? `restarted ${app} with its new values` : `no app ${app} runs: it gets them when it starts`)
      }
      return 0
    }
    const { app, key } = asked
    if (asked.method === 'settings.unset') {
      const result = await conn.request('settings.unset', { app, key })
      io.out(result.removed.length === 0
        ? `nothing to remove: ${args[0]} is not set`
        : `removed ${result.removed.map((/** @type {string} */ k) => `${app}.${k}`).join(', ')} (the app has it until its next start or restart)`)
      return 0
    }
    /** @type {Record<string, Record<string, string>>} */
    const data = await conn.request('settings.get', { app })
    if (key !== null) {
      const values = data[/** @type {string} */ (app)]
      if (!Object.hasOwn(values, key)) throw new SupError('SUP_ERR_SETTINGS_NOT_FOUND', { key: String(args[0]) })
      io.out(values[key])
      return 0
    }
    for (const [name, values] of Object.entries(data)) {
      for (const [k, v] of Object.entries(values)) io.out(`${name}.${k} ${show(k, v)}`)
    }
    return 0
  } finally {
    await conn.close()
  }
}
