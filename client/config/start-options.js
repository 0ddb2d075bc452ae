// @ts-check
// The options of `sup start` (and of `sup-runtime`, which takes the same ones), read by
// client/cli.js and client/runtime-args.js to declare them and by client/config/build.js to
// turn the parsed flags into a PM2-style app entry. The flags that set an app key come from
// the field table (ipc/app-fields.js: a key's `cli` row, with its default printed from the
// table); the few that are not app settings are below. commander is passed in, so that
// `sup ls`, which never loads this module, stays fast. normalizeApp
// (client/config/normalize.js) validates every value, as it does for config files.
import { APP_FIELDS } from '../../ipc/app-fields.js'

/**
 * @typedef {object} StartOption
 * @property {string} flags commander's spelling: '-i, --instances <n>', '--watch [paths]', '--no-autorestart'
 * @property {string} help one line for --help
 * @property {string | null} key the app config key it sets, or null when it is not an app setting
 * @property {string[]} [aliases] other long flags for the same option (PM2's spellings), e.g. ['--cron']
 * @property {(value: any) => unknown} [parse] commander's value to the config value (undefined: not set)
 */

/** Flags that are not app settings: the caller reads them from the parsed options. */
const COMMAND_OPTIONS = /** @type {const} */ ([
  { flags: '--env <name>', key: null, help: 'with a config file: apply env_<name>' },
  { flags: '--only <names>', key: null, help: 'with a config file: only these apps (comma-separated)' }
])

/** @type {readonly StartOption[]} */
export const START_OPTIONS = [
  ...APP_FIELDS.flatMap((field) => (field.cli ?? []).map((flag) => ({ ...flag, key: field.key, help: withDefault(flag, field.default) }))),
  ...COMMAND_OPTIONS
]

/**
 * A flag's help with the table's default, for flags that take a value and keys whose default
 * is a number or a name ("default 5000"): the help never says a default the code does not have.
 * @param {import('../../ipc/app-fields.js').CliFlag} flag
 * @param {unknown} value the field's default
 */
function withDefault (flag, value) {
  const takesValue = /[<[]/.test(flag.flags)
  if (!takesValue || !(typeof value === 'number' || (typeof value === 'string' && value !== ''))) return flag.help
  return `${flag.help} (default ${typeof value === 'string' ? `"${value}"` : value})`
}

/**
 * Declare every start option (and its aliases) on a commander command.
 * @param {import('commander').Command} command
 * @param {readonly StartOption[]} [options]
 */
export function declareStartOptions (command, options = START_OPTIONS) {
  for (const option of options) {
    command.option(option.flags, option.help)
    const long = longFlag(option.flags)
    const value = option.flags.slice(option.flags.indexOf(long) + long.length)
    for (const alias of option.aliases ?? []) command.option(`${alias}${value}`, `alias of ${long}`)
  }
}

/**
 * The parsed flags as a PM2-style app entry: each row's value (or its first alias given) under
 * its config key, `parse`d; flags not given are left out so config defaults apply.
 * @param {Record<string, any>} opts commander's parsed options
 * @param {readonly StartOption[]} [options]
 * @returns {Record<string, unknown>}
 */
export function appEntryFromFlags (opts, options = START_OPTIONS) {
  /** @type {Record<string, unknown>} */
  const entry = {}
  for (const option of options) {
    if (option.key === null) continue
    let value
    for (const flag of [longFlag(option.flags), ...option.aliases ?? []]) value ??= opts[attributeName(flag)]
    if (value !== undefined && option.parse) value = option.parse(value)
    if (value !== undefined) entry[option.key] = value
  }
  return entry
}

/**
 * The long flag of a commander spelling: '-i, --instances <n>' -> '--instances'.
 * @param {string} flags
 */
export function longFlag (flags) {
  const long = flags.split(/[ ,|]+/).find((part) => part.startsWith('--'))
  if (!long) throw new Error(`start option "${flags}" has no long flag`)
  return long
}

/**
 * Where commander puts a flag's value, as it names it: '--no-log-compress' -> 'logCompress'.
 * @param {string} long
 */
export function attributeName (long) {
  return long.replace(/^--(no-)?/, '').replace(/-([a-z])/g, (_, c) => c.toUpperCase())
}
