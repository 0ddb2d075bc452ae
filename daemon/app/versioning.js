// @ts-check
// Which git revision an app runs: the checkout its folder is in, read when a worker starts and
// shown by `sup describe` (PM2's "revision control metadata", which it gets from vizion; the
// `vizion` key turns it off, as in PM2). Read from the files under .git, never by running git:
// no process per start, and nothing to hang on a slow or broken repository.
import { readFile, stat } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'

/**
 * @typedef {object} Versioning
 * @property {'git'} type
 * @property {string} repo_path the work tree's top folder
 * @property {string | null} branch null when HEAD is detached
 * @property {string | null} revision the commit HEAD names (null in a repository without commits)
 * @property {string | null} remote the url of `origin` (or of the first remote)
 */

/** A folder deeper than this is not walked up further (a loop of links, a very deep tree). */
const MAX_DEPTH = 64
const HASH = /^[0-9a-f]{40}([0-9a-f]{24})?$/

/**
 * @param {string} dir the app's cwd
 * @returns {Promise<Versioning | null>} null outside a git work tree, or when it cannot be read
 */
export async function readVersioning (dir) {
  try {
    const found = await findGitDir(resolve(dir))
    if (!found) return null
    const { top, gitDir } = found
    // A linked work tree (git worktree) keeps its HEAD; refs and config live in the common dir.
    const common = await readText(join(gitDir, 'commondir')).then((text) => resolve(gitDir, text.trim()), () => gitDir)
    const head = (await readText(join(gitDir, 'HEAD'))).trim()
    const ref = head.startsWith('ref: ') ? head.slice(5).trim() : null
    const revision = ref ? await resolveRef(common, gitDir, ref) : HASH.test(head) ? head : null
    const branch = ref?.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : null
    return { type: 'git', repo_path: top, branch, revision, remote: await readRemote(common) }
  } catch {
    return null
  }
}

/**
 * The nearest folder, from `dir` up, with a `.git` folder or a `.git` file (`gitdir: <path>`,
 * in linked work trees and submodules).
 * @param {string} dir
 * @returns {Promise<{ top: string, gitDir: string } | null>}
 */
async function findGitDir (dir) {
  for (let at = dir, depth = 0; depth < MAX_DEPTH; depth++) {
    const dotGit = join(at, '.git')
    const info = await stat(dotGit).catch(() => null)
    if (info?.isDirectory()) return { top: at, gitDir: dotGit }
    if (info?.isFile()) {
      const match = /^gitdir:\s*(.+)$/m.exec(await readText(dotGit))
      if (match) return { top: at, gitDir: resolve(at, match[1].trim()) }
    }
    const up = dirname(at)
    if (up === at) return null
    at = up
  }
  return null
}

/**
 * @param {string} common the repository's common dir
 * @param {string} gitDir this work tree's git dir
 * @param {string} ref e.g. refs/heads/main
 * @returns {Promise<string | null>}
 */
async function resolveRef (common, gitDir, ref) {
  for (const base of new Set([gitDir, common])) {
    const loose = await readText(join(base, ref)).then((text) => text.trim(), () => null)
    if (loose && HASH.test(loose)) return loose
  }
  const packed = await readText(join(common, 'packed-refs')).catch(() => '')
  for (const line of packed.split('\n')) {
    const [hash, name] = line.trim().split(' ')
    if (name === ref && HASH.test(hash)) return hash
  }
  return null
}

/**
 * @param {string} common
 * @returns {Promise<string | null>}
 */
async function readRemote (common) {
  const config = await readText(join(common, 'config')).catch(() => '')
  /** @type {Map<string, string>} */
  const urls = new Map()
  let section = null
  for (const raw of config.split('\n')) {
    const line = raw.trim()
    const header = /^\[remote\s+"([^"]+)"\]$/.exec(line)
    if (header) section = header[1]
    else if (line.startsWith('[')) section = null
    else if (section !== null) {
      const url = /^url\s*=\s*(.+)$/.exec(line)
      if (url && !urls.has(section)) urls.set(section, url[1].trim())
    }
  }
  const url = urls.get('origin') ?? urls.values().next().value ?? null
  // https://user:token@host/...: a token in a remote's url is not for `sup describe` to show.
  return url === null ? null : url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, '$1')
}

/** @param {string} file */
function readText (file) {
  return readFile(file, 'utf8')
}
