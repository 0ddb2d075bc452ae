// @ts-check
// PM2's `uid` / `gid` (`user`) keys: a daemon run by root starts an app's workers as that user
// and group (issue 19 item 4). Before, the keys were dropped without a word and an app
// configured to run as `nobody` ran as root. A daemon that is not root cannot change user, and
// says so instead of running the app as itself. Users and groups are read from /etc/passwd and
// /etc/group (Node has no getpwnam); names that only NSS knows (LDAP, sssd) take their number.
import { readFileSync } from 'node:fs'
import { SupError } from '../../ipc/errors.js'

/**
 * @typedef {object} RunAs
 * @property {number} uid
 * @property {number} gid
 * @property {string | null} user its name, when /etc/passwd has it
 * @property {string | null} home its home folder, when /etc/passwd has it
 */

/**
 * @typedef {object} Accounts
 * @property {() => string} passwd the text of /etc/passwd
 * @property {() => string} group the text of /etc/group
 * @property {number} euid
 * @property {number} egid
 */

/** @type {Accounts} */
const SYSTEM = {
  passwd: () => readFileSync('/etc/passwd', 'utf8'),
  group: () => readFileSync('/etc/group', 'utf8'),
  euid: process.geteuid?.() ?? -1,
  egid: process.getegid?.() ?? -1
}

/**
 * Who an app's workers run as: null for the daemon's own user (no uid or gid set, or both the
 * daemon's own). Throws SUP_ERR_APP_USER_UNKNOWN or SUP_ERR_APP_USER_NOT_ROOT.
 * @param {Pick<import('../../ipc/app-config.js').AppConfig, 'name' | 'uid' | 'gid'>} config
 * @param {Accounts} [accounts]
 * @returns {RunAs | null}
 */
export function resolveRunAs (config, accounts = SYSTEM) {
  if (config.uid === null && config.gid === null) return null
  const users = config.uid === null ? null : parseTable(accounts.passwd())
  const entry = config.uid === null ? null : find(users, config.uid)
  if (config.uid !== null && !entry && typeof config.uid === 'string') throw new SupError('SUP_ERR_APP_USER_UNKNOWN', { name: config.name, key: 'uid', value: config.uid })
  const uid = config.uid === null ? accounts.euid : entry ? Number(entry[2]) : Number(config.uid)
  let gid
  if (config.gid !== null) {
    const group = find(parseTable(accounts.group()), config.gid)
    if (!group && typeof config.gid === 'string') throw new SupError('SUP_ERR_APP_USER_UNKNOWN', { name: config.name, key: 'gid', value: config.gid })
    gid = group ? Number(group[2]) : Number(config.gid)
  } else {
    // The user's own group, as login and su give it.
    gid = entry ? Number(entry[3]) : accounts.egid
  }
  if (uid === accounts.euid && gid === accounts.egid) return null
  if (accounts.euid !== 0) throw new SupError('SUP_ERR_APP_USER_NOT_ROOT', { name: config.name, user: String(config.uid ?? config.gid) })
  return { uid, gid, user: entry?.[0] ?? null, home: entry?.[5] ?? null }
}

/**
 * The environment a worker of another user gets: its HOME, USER and LOGNAME, unless the app's
 * own env sets them (root's HOME would send the app's dotfiles to /root).
 * @param {Record<string, string>} env
 * @param {RunAs} runAs
 * @param {Record<string, string>} appEnv the app's `env`, which wins
 */
export function envFor (env, runAs, appEnv) {
  const own = {}
  if (runAs.home !== null && !('HOME' in appEnv)) Object.assign(own, { HOME: runAs.home })
  if (runAs.user !== null && !('USER' in appEnv)) Object.assign(own, { USER: runAs.user })
  if (runAs.user !== null && !('LOGNAME' in appEnv)) Object.assign(own, { LOGNAME: runAs.user })
  return { ...env, ...own }
}

/**
 * @param {string} text /etc/passwd or /etc/group
 * @returns {string[][]}
 */
function parseTable (text) {
  return text.split('\n').filter((line) => line && !line.startsWith('#')).map((line) => line.split(':'))
}

/**
 * The entry of a name, or of a number.
 * @param {string[][] | null} table
 * @param {string | number} wanted
 */
function find (table, wanted) {
  if (!table) return null
  return table.find((row) => typeof wanted === 'number' ? Number(row[2]) === wanted : row[0] === wanted) ?? null
}
