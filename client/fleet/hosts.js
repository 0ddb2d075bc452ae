// @ts-check
// Which machines a command goes to: `--host web1,deploy@web2:/srv/sup` on the command line,
// `--host all` for every line of the hosts file. A host is an ssh destination (ssh's own
// config gives it a port, user, key or jump host) and, after a colon, the SUP_HOME there.
import { readFileSync } from 'node:fs'
import { homedir } from 'node:os'
import { join } from 'node:path'
import { SupError } from '../../ipc/errors.js'

/**
 * @typedef {object} Host
 * @property {string} spec as written: the host's name in every line sup prints
 * @property {string} destination what ssh is given: [user@]host, an ssh config alias
 * @property {string | null} home SUP_HOME there; null: the remote user's default (~/.sup)
 */

// No leading '-' (ssh would read an option: -oProxyCommand=...), no spaces or shell words.
const DESTINATION = /^[A-Za-z0-9_][A-Za-z0-9_.%+-]*(@[A-Za-z0-9_][A-Za-z0-9_.%+-]*)?$/
// An absolute path or one under the remote user's home, of plain path characters.
const HOME = /^(\/|~\/|~$)[\w.,+@%=:/~ -]*$/

/**
 * Take every `--host <list>` / `--host=<list>` out of the arguments, up to a `--`. `sup metrics
 * --host` keeps its own meaning (the address the endpoint listens on).
 * @param {string[]} argv
 * @returns {{ hosts: string[] | null, argv: string[] }} hosts: the words given, null when none
 */
export function takeHostFlag (argv) {
  /** @type {string[]} */
  const hosts = []
  /** @type {string[]} */
  const rest = []
  let found = false
  let verb = null
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i]
    if (word === '--') {
      rest.push(...argv.slice(i))
      break
    }
    if (verb !== 'metrics' && (word === '--host' || word.startsWith('--host='))) {
      found = true
      const value = word === '--host' ? argv[++i] : word.slice('--host='.length)
      if (value === undefined || value === '') throw new SupError('SUP_ERR_CLI_USAGE', { reason: '--host takes ssh destinations, comma-separated (--host web1,deploy@web2), or "all" for the hosts file' })
      hosts.push(...value.split(',').map((h) => h.trim()).filter(Boolean))
      continue
    }
    if (verb === null && !word.startsWith('-')) verb = word
    rest.push(word)
  }
  return { hosts: found ? hosts : null, argv: rest }
}

/**
 * The hosts file: one host per line, `#` starts a comment.
 * @param {NodeJS.ProcessEnv} env
 */
export function hostsFile (env) {
  return env.SUP_HOSTS_FILE || join(env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config'), 'sup', 'hosts')
}

/**
 * The hosts the words name, in order, each once; `all` expands to the hosts file.
 * @param {string[]} words
 * @param {NodeJS.ProcessEnv} env
 * @returns {Host[]}
 */
export function resolveHosts (words, env) {
  const specs = words.flatMap((word) => word === 'all' ? readHostsFile(env) : [word])
  const hosts = [...new Set(specs)].map(parseHost)
  if (hosts.length === 0) throw new SupError('SUP_ERR_CLI_USAGE', { reason: '--host names no host' })
  return hosts
}

/**
 * @param {NodeJS.ProcessEnv} env
 * @returns {string[]}
 */
function readHostsFile (env) {
  const file = hostsFile(env)
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new SupError('SUP_ERR_HOST_NONE', { file, reason: /** @type {NodeJS.ErrnoException} */ (err).code ?? String(err) })
  }
  const specs = text.split('\n').map((line) => line.replace(/#.*/, '').trim()).filter(Boolean)
  if (specs.length === 0) throw new SupError('SUP_ERR_HOST_NONE', { file, reason: 'it lists none' })
  return specs
}

/**
 * `[user@]host[:home]`: the home starts with / or ~.
 * @param {string} spec
 * @returns {Host}
 */
export function parseHost (spec) {
  const colon = spec.search(/:[/~]/)
  const destination = colon === -1 ? spec : spec.slice(0, colon)
  const home = colon === -1 ? null : spec.slice(colon + 1)
  if (!DESTINATION.test(destination)) {
    throw new SupError('SUP_ERR_HOST_INVALID', { host: spec, reason: 'write [user@]host, a name your ssh config knows (ports, keys and jump hosts go there)' })
  }
  if (home !== null && !HOME.test(home)) throw new SupError('SUP_ERR_HOST_INVALID', { host: spec, reason: 'the SUP_HOME after the colon must be an absolute path or start with ~/' })
  return { spec, destination, home }
}

/**
 * The name each host goes by in output: its destination, or the whole spec where two hosts
 * share one (two homes on one machine).
 * @param {Host[]} hosts
 * @returns {string[]}
 */
export function hostLabels (hosts) {
  return hosts.map((h) => hosts.filter((o) => o.destination === h.destination).length > 1 ? h.spec : h.destination)
}
