// @ts-check
// What the CLI does to targets before the daemon resolves them (daemon/resolve-targets.js):
// a config file stands for the names of the apps it declares, a /regex/ for the app names
// it matches.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { SupError } from '../ipc/errors.js'
import { STDIN_LABEL, appName, isConfigFile, loadConfigFile, loadConfigText, selectApps } from './config/load-file.js'
import { readStdin } from './stdin.js'

/**
 * @param {string[]} targets names, ids, "all", config files, or "-": a config on stdin (PM2's `delete -`)
 * @param {{ cwd: string, only?: string, stdin?: () => Promise<string> }} options
 * @returns {Promise<string[]>}
 */
export async function expandTargets (targets, { cwd, only, stdin = readStdin }) {
  const expanded = []
  for (const target of targets) {
    if (target === '-') {
      const apps = await loadConfigText(await stdin())
      expanded.push(...(only ? selectApps(apps, only, STDIN_LABEL) : apps).map(appName))
    } else if (isConfigFile(target) && existsSync(resolve(cwd, target))) {
      const { file, apps } = await loadConfigFile(target, cwd)
      const selected = only ? selectApps(apps, only, file) : apps
      expanded.push(...selected.map(appName))
    } else {
      expanded.push(target)
    }
  }
  return expanded
}

/**
 * PM2's regex target: `/pattern/`, matched against app names.
 * @param {string} target
 */
export function isRegexTarget (target) {
  return target.length > 2 && target.startsWith('/') && target.endsWith('/')
}

/**
 * Only the outer slashes are the delimiters; PM2 drops every "/" in the pattern (docs/pm2.md).
 * @param {string} target a regex target
 * @returns {RegExp}
 */
export function compileTarget (target) {
  try {
    return new RegExp(target.slice(1, -1))
  } catch (err) {
    throw new SupError('SUP_ERR_APP_TARGET_INVALID', { target, reason: /** @type {Error} */ (err).message }, { cause: err })
  }
}

/**
 * Replace each regex target by the names of the apps it matches. The CLI does this, not the
 * daemon: a pattern that backtracks badly then hangs one command, never the supervisor.
 * @param {string[]} targets
 * @param {() => Promise<Array<{ name: string }>>} list the daemon's rows (asked for only when needed)
 * @returns {Promise<string[]>}
 */
export async function expandRegexTargets (targets, list) {
  if (!targets.some(isRegexTarget)) return targets
  const patterns = new Map(targets.filter(isRegexTarget).map((t) => [t, compileTarget(t)]))
  const names = [...new Set((await list()).map((row) => row.name))]
  return targets.flatMap((target) => {
    const pattern = patterns.get(target)
    if (!pattern) return [target]
    const matched = names.filter((name) => pattern.test(name))
    if (matched.length === 0) throw new SupError('SUP_ERR_APP_NO_MATCH', { target })
    return matched
  })
}
