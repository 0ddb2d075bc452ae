// @ts-check
// Which workers a CLI target names, by PM2's rules (its API._operate and
// Client.getProcessIdByName): "all"; an app name or the app's script file; a namespace; a
// worker id. A name wins over a namespace, and both over an id, so an app called "455" is
// reached by `sup restart 455` as in PM2. Regex targets (/^api-/) are matched by the CLI
// (client/targets.js): a pattern compiled here could hang the daemon on backtracking.
import { isAbsolute, resolve } from 'node:path'
import { SupError } from '../ipc/errors.js'

/**
 * @typedef {object} Candidate what a target can match on
 * @property {number} id
 * @property {string} name
 * @property {string} namespace
 * @property {string} script absolute path, or a command found on PATH
 */

/**
 * The candidates named by one target, in their given order; [] when none.
 * @template {Candidate} T
 * @param {string} target
 * @param {T[]} candidates
 * @param {{ cwd?: string }} [options] cwd: the caller's directory, for a script given as a relative path
 * @returns {T[]}
 */
export function matchTarget (target, candidates, { cwd } = {}) {
  if (target === 'all') return [...candidates]
  const script = cwd || isAbsolute(target) ? resolve(cwd ?? '/', target) : null
  const byName = candidates.filter((c) => c.name === target || c.script === script)
  if (byName.length > 0) return byName
  const byNamespace = candidates.filter((c) => c.namespace === target)
  if (byNamespace.length > 0) return byNamespace
  if (/^\d+$/.test(target)) return candidates.filter((c) => c.id === Number(target))
  return []
}

/**
 * Every candidate named by any of the targets, each once, in target order. A target that
 * names nothing fails the whole call before anything is done (PM2 acts on the targets before
 * it; docs/pm2.md). "all" with no apps fails too, as in PM2, unless allowNone.
 * @template {Candidate} T
 * @param {string[]} targets
 * @param {T[]} candidates
 * @param {{ cwd?: string, allowNone?: boolean }} [options]
 * @returns {T[]}
 */
export function resolveTargets (targets, candidates, { cwd, allowNone = false } = {}) {
  /** @type {Set<T>} */
  const found = new Set()
  for (const target of targets) {
    const matched = matchTarget(target, candidates, { cwd })
    if (matched.length === 0) {
      if (target !== 'all') throw new SupError('SUP_ERR_APP_NOT_FOUND', { target })
      if (!allowNone) throw new SupError('SUP_ERR_APP_NONE')
    }
    for (const candidate of matched) found.add(candidate)
  }
  return [...found]
}
