// @ts-check
// What sup says about the keys of a config file's app that it does not use: a key PM2 knows
// (a PM2 file carries them; PM2 7's lib/API/schema.json) has no effect under sup; any other
// is unknown, most likely a typo, so it gets a did-you-mean from the field table. Warnings,
// never errors: the file works under PM2 and sup alike.
import { APP_FIELDS } from '../../ipc/app-fields.js'
import { editDistance } from '../suggest-verb.js'

/**
 * PM2's app keys that sup reads no value from, with what to do instead where there is a way.
 * @type {Readonly<Record<string, string>>}
 */
export const PM2_IGNORED_KEYS = Object.freeze({
  append_env_to_name: '',
  automation: 'sup has no Keymetrics automation',
  deep_monitoring: 'sup has no tracing agent (docs/pm2.md)',
  disable_source_map_support: 'sup injects no source-map support',
  disable_trace: 'sup has no tracing agent',
  event_loop_inspector: 'sup\'s agent reports event-loop delay by itself',
  exec: 'use script',
  execute_command: '',
  filter_env: 'sup never passes the daemon\'s environment',
  force: 'sup start -f does it',
  install_url: '',
  io: 'sup has no @pm2/io agent',
  kill_retry_time: '',
  name_prefix: '',
  pmx: 'sup has no @pm2/io agent',
  port: 'set env: { PORT: ... }',
  post_update: '',
  source_map_support: 'use node_args: "--enable-source-maps"',
  trace: 'sup has no tracing agent',
  treekill: 'sup always stops the whole process tree',
  username: '',
  v8: '',
  watch_options: 'sup\'s watcher takes ignore_watch and watch_delay',
  windowsHide: '',
  write: ''
})

/** Every name sup reads in an app entry: the table's keys and PM2's aliases of them. */
const KNOWN = new Set(APP_FIELDS.flatMap((field) => [field.key, ...field.aliases ?? []]))

/**
 * A warning for each key of an entry that sup does not use.
 * @param {Record<string, unknown>} raw
 * @returns {string[]} what follows `<file>: app "<name>": `
 */
export function ignoredKeys (raw) {
  /** @type {string[]} */
  const warnings = []
  for (const key of Object.keys(raw)) {
    if (KNOWN.has(key) || key.startsWith('env_')) continue
    if (Object.hasOwn(PM2_IGNORED_KEYS, key)) {
      const hint = PM2_IGNORED_KEYS[key]
      warnings.push(`ignored: PM2's "${key}" key has no effect under sup${hint ? ` (${hint})` : ''}`)
    } else {
      const near = closestKey(key)
      warnings.push(`unknown key "${key}" is ignored${near ? ` (did you mean "${near}"?)` : ''}`)
    }
  }
  return warnings
}

/**
 * The known key nearest to a misspelt one: the same once camelCase or dashes are snake_case,
 * else within 1 edit (2 for longer keys), a swap of two letters counting as one.
 * @param {string} key
 * @returns {string | null}
 */
export function closestKey (key) {
  const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toLowerCase()
  if (KNOWN.has(snake)) return snake
  const limit = snake.length >= 5 ? 2 : 1
  let best = null
  let bestDistance = limit + 1
  for (const known of KNOWN) {
    const distance = editDistance(snake, known)
    if (distance < bestDistance) [best, bestDistance] = [known, distance]
  }
  return best
}
