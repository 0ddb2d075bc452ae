// @ts-check
// sup-runtime as PID 1 (a container started without --init): orphaned grandchildren are
// re-parented to PID 1 and stay zombies until it waits for them, and Node cannot wait for a
// process it did not spawn (docs/deploy.md#pid-1-zombies-and-why-to-use-an-init). So, when it
// finds itself PID 1, sup-runtime puts a real init in front of itself, one found on the machine:
//   - Node with process.execve (22.15+, 23.11+): the runtime becomes `tini -- node sup-runtime
//     ...` in place: tini is PID 1, reaps everything and passes signals on to the runtime;
//   - older Node (20): it cannot replace itself, so it starts `tini -s -- node sup-runtime ...`
//     as its one child: `-s` makes tini the subreaper of everything below it, so orphans go to
//     tini, which reaps them, and this PID 1 only passes signals on and exits with tini's code.
// SUP_RUNTIME_INIT chooses: unset (look for tini, then dumb-init), a path to one of them, or
// `none` (run as PID 1 anyway, with the warning). Pure: the caller carries the plan out.
import { basename, isAbsolute, join } from 'node:path'

/** Where an init is looked for, after PATH: the Debian, Alpine and Docker --init places. */
const KNOWN_DIRS = ['/usr/bin', '/sbin', '/usr/sbin', '/bin', '/usr/local/bin']

/**
 * @typedef {{ kind: 'none' }
 *   | { kind: 'warn', why: string }
 *   | { kind: 'execve', file: string, args: string[] }
 *   | { kind: 'spawn', file: string, args: string[] }} ReaperPlan
 *
 * @typedef {object} ReaperFacts
 * @property {number} pid this process's pid
 * @property {NodeJS.ProcessEnv} env
 * @property {boolean} canExecve process.execve exists
 * @property {string[]} command the runtime's own command: node, its options, the script, its args
 * @property {(path: string) => boolean} isExecutable
 */

/**
 * What sup-runtime does about reaping, from where it runs.
 * @param {ReaperFacts} facts
 * @returns {ReaperPlan}
 */
export function reaperPlan ({ pid, env, canExecve, command, isExecutable }) {
  if (pid !== 1) return { kind: 'none' }
  const wanted = env.SUP_RUNTIME_INIT
  if (wanted === 'none') return { kind: 'warn', why: 'SUP_RUNTIME_INIT=none' }
  const init = wanted ? findGiven(wanted, isExecutable) : findInit(env.PATH ?? '', isExecutable)
  if (init === null) {
    return { kind: 'warn', why: wanted ? `SUP_RUNTIME_INIT=${wanted} is not an executable tini or dumb-init` : 'no tini or dumb-init on this machine' }
  }
  const isTini = basename(init).startsWith('tini')
  if (canExecve) {
    // dumb-init forwards signals to its child's whole process group unless told not to: the
    // runtime passes them on itself, to each worker as the app's config says.
    return { kind: 'execve', file: init, args: [init, ...(isTini ? [] : ['--single-child']), '--', ...command] }
  }
  // dumb-init cannot become a subreaper when it is not PID 1: only tini can help here.
  if (!isTini) return { kind: 'warn', why: `${init} cannot reap for a PID 1 it does not replace, and this Node has no process.execve (Node 22.15 and later do): use tini` }
  return { kind: 'spawn', file: init, args: ['-s', '--', ...command] }
}

/**
 * @param {string} given
 * @param {(path: string) => boolean} isExecutable
 * @returns {string | null}
 */
function findGiven (given, isExecutable) {
  const name = basename(given)
  if (!isAbsolute(given) || !(name.startsWith('tini') || name === 'dumb-init')) return null
  return isExecutable(given) ? given : null
}

/**
 * @param {string} path PATH
 * @param {(path: string) => boolean} isExecutable
 * @returns {string | null}
 */
function findInit (path, isExecutable) {
  const dirs = [...path.split(':').filter((dir) => isAbsolute(dir)), ...KNOWN_DIRS]
  for (const name of ['tini', 'tini-static', 'dumb-init']) {
    for (const dir of dirs) {
      const file = join(dir, name)
      if (isExecutable(file)) return file
    }
  }
  return null
}
