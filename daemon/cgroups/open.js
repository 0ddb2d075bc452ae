// @ts-check
// The daemon's cgroups at its start: detect what the machine offers; then, once the dump's
// recovery has given a dead daemon's workers their stop ladder (dump/reap-previous.js), end
// whatever is still in that daemon's subtree (and in the subtrees it recorded, when it sat in
// other cgroups than we do), before any app is restored; then record ours for the next daemon.
import { isAbsolute, join, normalize } from 'node:path'
import { readOwnFile, writeFileAtomic } from '../../ipc/own-files.js'
import { Cgroups } from './cgroups.js'

/** The record of a daemon's subtrees, in its SUP_HOME. */
export const RECORD_FILE = 'cgroups.json'
const RECORD_CAP = 64 * 1024

/**
 * @param {{ home: string, env: NodeJS.ProcessEnv, logger: import('pino').Logger }} options
 * @returns {Cgroups}
 */
export function openCgroups ({ home, env, logger }) {
  const cgroups = new Cgroups({ home, env, logger, delegate: true })
  if (cgroups.enabled) logger.info({ containment: cgroups.describe(), roots: cgroups.roots() }, 'each worker runs in its own cgroup')
  else logger.info({ containment: cgroups.describe() }, 'no cgroups: workers are contained by the token sweep')
  return cgroups
}

/**
 * End what a dead daemon of this home left in its cgroups, and record ours.
 * @param {Cgroups} cgroups
 * @param {{ home: string, logger: import('pino').Logger }} options
 */
export async function endPreviousCgroups (cgroups, { home, logger }) {
  if (!cgroups.enabled) return
  const file = join(home, RECORD_FILE)
  const killed = await cgroups.endPrevious(await readRecorded(file)).catch((err) => {
    logger.error({ err }, 'could not end the cgroups of the previous daemon')
    return 0
  })
  if (killed > 0) logger.warn({ killed }, 'ended the processes a previous daemon left in its cgroups')
  await writeFileAtomic(file, JSON.stringify({ roots: cgroups.roots() }) + '\n')
    .catch((err) => logger.warn({ err }, 'could not record the daemon\'s cgroups'))
}

/**
 * The subtrees a previous daemon recorded: absolute, normalised paths only (endPrevious takes
 * only those under a cgroup mount and named for this SUP_HOME).
 * @param {string} file
 * @returns {Promise<string[]>}
 */
export async function readRecorded (file) {
  try {
    const { roots } = JSON.parse(await readOwnFile(file, RECORD_CAP))
    if (!Array.isArray(roots)) return []
    return roots.filter((r) => typeof r === 'string' && isAbsolute(r) && normalize(r) === r)
  } catch {
    return []
  }
}
