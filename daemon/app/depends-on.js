// @ts-check
// `depends_on` (docs/probes.md#depends_on): every name must be an app the daemon runs or one of
// the same start, and the dependencies must not go round in a circle. Pure: the supervisor
// checks a start with it before anything of the start exists.
import { SupError } from '../../ipc/errors.js'

/**
 * @param {Array<{ name: string, depends_on: string[] }>} starting the configs of one start
 * @param {Map<string, string[]>} running name → depends_on of every app the daemon has
 */
export function checkDependencies (starting, running) {
  /** @type {Map<string, string[]>} */
  const graph = new Map(running)
  for (const { name, depends_on: deps } of starting) graph.set(name, deps ?? [])
  for (const { name, depends_on: deps } of starting) {
    for (const dependency of deps ?? []) {
      if (!graph.has(dependency)) throw new SupError('SUP_ERR_APP_DEPENDENCY_UNKNOWN', { name, dependency })
    }
  }
  // Depth-first from each new app; a name met again on the current path closes a circle.
  /** @type {Set<string>} */
  const done = new Set()
  /** @param {string} name @param {string[]} path */
  const visit = (name, path) => {
    if (path.includes(name)) throw new SupError('SUP_ERR_APP_DEPENDENCY_CYCLE', { cycle: [...path.slice(path.indexOf(name)), name].join(' -> ') })
    if (done.has(name)) return
    for (const dependency of graph.get(name) ?? []) visit(dependency, [...path, name])
    done.add(name)
  }
  for (const { name } of starting) visit(name, [])
}
