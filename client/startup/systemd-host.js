// @ts-check
// What `sup startup` / `sup unstartup` need from the machine: who the daemon runs as, where
// units go, whether systemd runs here, and systemctl.
import { spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { delimiter, dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { SupError } from '../../ipc/errors.js'
import { defaultServiceName } from './systemd-unit.js'

export const SYSTEM_UNIT_DIR = '/etc/systemd/system'
export const SUP_BIN = fileURLToPath(new URL('../../bin/sup.cjs', import.meta.url))

/**
 * @typedef {object} StartupTarget
 * @property {string} user
 * @property {string} home the user's home folder
 * @property {number | null} uid the user's uid (null where it cannot be known)
 * @property {string} supHome
 * @property {string} service unit name without ".service"
 * @property {string} unitDir
 * @property {string} unitFile
 * @property {string} socketFile the .socket unit beside it (saved apps with `listen`)
 * @property {boolean} defaultDir the unit goes where systemd reads system units
 */

/**
 * @param {{ platform?: string }} args
 */
export function checkPlatform ({ platform = 'systemd' }) {
  if (platform !== 'systemd') throw new SupError('SUP_ERR_STARTUP_UNSUPPORTED', { platform })
}

/** @returns {boolean} */
export function isRoot () {
  return typeof process.getuid === 'function' && process.getuid() === 0
}

/**
 * Whose daemon, with which SUP_HOME, in which file. As root the default user is the one who
 * ran sudo; its SUP_HOME is its own ~/.sup unless SUP_HOME or --home says otherwise.
 * @param {Record<string, any>} opts --user, --home, --service-name, --unit-dir
 * @param {NodeJS.ProcessEnv} env
 * @returns {StartupTarget}
 */
export function resolveTarget (opts, env) {
  const me = userInfo()
  const user = opts.user ?? (isRoot() && env.SUDO_USER ? env.SUDO_USER : me.username)
  const { home, uid } = user === me.username ? { home: me.homedir, uid: me.uid } : lookupUser(user)
  const supHome = resolve(opts.home ?? (user === me.username && env.SUP_HOME ? env.SUP_HOME : join(home, '.sup')))
  const service = opts.serviceName ?? defaultServiceName(user)
  const unitDir = resolve(opts.unitDir ?? SYSTEM_UNIT_DIR)
  return { user, home, uid, supHome, service, unitDir, unitFile: join(unitDir, `${service}.service`), socketFile: join(unitDir, `${service}.socket`), defaultDir: unitDir === SYSTEM_UNIT_DIR }
}

/**
 * A user's home folder and uid from the password database (getent also asks LDAP and friends).
 * @param {string} user
 * @returns {{ home: string, uid: number | null }}
 */
function lookupUser (user) {
  const getent = spawnSync('getent', ['passwd', user], { encoding: 'utf8' })
  const line = getent.status === 0
    ? getent.stdout
    : readPasswd().split('\n').find((l) => l.startsWith(`${user}:`)) ?? ''
  const fields = line.trim().split(':')
  const home = fields[5]
  if (!home) throw new SupError('SUP_ERR_STARTUP_USER_NOT_FOUND', { user })
  return { home, uid: /^\d+$/.test(fields[2]) ? Number(fields[2]) : null }
}

function readPasswd () {
  try {
    return readFileSync('/etc/passwd', 'utf8')
  } catch {
    return ''
  }
}

/**
 * The PATH for the unit: the caller's, with node's own folder first (so `node` and
 * interpreters resolve at boot as they do in the caller's shell).
 * @param {NodeJS.ProcessEnv} env
 */
export function unitPath (env) {
  const dirs = (env.PATH ?? '/usr/local/bin:/usr/bin:/bin').split(delimiter).filter(Boolean)
  const nodeDir = dirname(process.execPath)
  return [...new Set([nodeDir, ...dirs])].join(delimiter)
}

/** systemd is PID 1 here and can be asked to enable units. */
export function systemdRunning () {
  return existsSync('/run/systemd/system')
}

/**
 * Run systemctl; a failure is SUP_ERR_STARTUP_COMMAND_FAILED naming the command.
 * @param {string[]} args
 */
export function systemctl (args) {
  const result = spawnSync('systemctl', args, { encoding: 'utf8', timeout: 30_000 })
  const command = `systemctl ${args.join(' ')}`
  if (result.error) throw new SupError('SUP_ERR_STARTUP_COMMAND_FAILED', { command, reason: result.error.message })
  if (result.status !== 0) {
    const reason = (result.stderr || result.stdout).trim().split('\n').pop() || `exit code ${result.status}`
    throw new SupError('SUP_ERR_STARTUP_COMMAND_FAILED', { command, reason })
  }
  return command
}

/**
 * How to run this same sup as root, for the message a normal user gets.
 * @param {string} verb
 * @param {StartupTarget} target
 * @param {NodeJS.ProcessEnv} env
 */
export function rootCommand (verb, target, env) {
  const q = (/** @type {string} */ s) => /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, "'\\''")}'`
  const words = ['sudo', 'env', `PATH=${env.PATH ?? ''}`, process.execPath, SUP_BIN, verb, 'systemd', '--user', target.user]
  if (verb === 'startup') words.push('--home', target.supHome)
  if (target.service !== defaultServiceName(target.user)) words.push('--service-name', target.service)
  if (!target.defaultDir) words.push('--unit-dir', target.unitDir)
  return words.map(q).join(' ')
}
