// @ts-check
// sup's own files on the daemon's side, off its loop: read whole (not through a symlink, a
// regular file, under a size cap) and replaced atomically through a random temp name made
// O_EXCL | O_NOFOLLOW (design §12). Apart from safe-fs.js so that the CLI, which needs neither,
// does not load node:crypto's and fs/promises' modules for them.
import { randomBytes } from 'node:crypto'
import { constants } from 'node:fs'
import { open, rename, unlink } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { SupError } from './errors.js'
import { checkSize, describeType, O_NOFOLLOW, refusedLink } from './safe-fs.js'

const { O_CREAT, O_EXCL, O_NONBLOCK, O_RDONLY, O_WRONLY } = constants

/**
 * Read one of sup's own files whole, the open and the read off the main thread: not through a
 * symlink, a regular file, at most `cap` bytes. Errors keep their errno code (ENOENT: there is
 * none) or are SUP_ERR_HOME_FILE_UNSAFE.
 * @param {string} file
 * @param {number} cap bytes
 * @returns {Promise<string>}
 */
export async function readOwnFile (file, cap) {
  let handle
  try {
    handle = await open(file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK)
  } catch (err) {
    throw refusedLink(file, err)
  }
  try {
    const stat = await handle.stat()
    if (!stat.isFile()) throw new SupError('SUP_ERR_HOME_FILE_UNSAFE', { file, what: describeType(stat) })
    checkSize(file, stat.size, cap)
    return await handle.readFile('utf8')
  } finally {
    await handle.close()
  }
}

/**
 * Replace `file` with `data` so that a reader sees the old content or the new, never a mix:
 * written to a temp file of a random name beside it, created O_EXCL | O_NOFOLLOW (a name
 * planted in advance, symlink or not, fails instead of being written through), then renamed
 * over `file` (which replaces a symlink there rather than following it).
 * @param {string} file
 * @param {string} data
 * @param {object} [options]
 * @param {number} [options.mode] of the new file
 * @param {boolean} [options.durable] fsync the file, and its folder after the rename
 * @param {() => Promise<void>} [options.beforeRename] e.g. keep the old file as a backup
 */
export async function writeFileAtomic (file, data, { mode = 0o600, durable = true, beforeRename } = {}) {
  const dir = dirname(file)
  const temp = join(dir, `.${basename(file)}.${randomBytes(8).toString('hex')}.tmp`)
  let created = false
  try {
    const handle = await open(temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode)
    created = true
    try {
      await handle.writeFile(data, 'utf8')
      if (durable) await handle.sync()
    } finally {
      await handle.close()
    }
    await beforeRename?.()
    await rename(temp, file)
  } catch (err) {
    // Only a temp file we made is ours to remove.
    if (created) await unlink(temp).catch(() => {})
    throw err
  }
  if (durable) await syncDir(dir)
}

/**
 * A rename is durable only once the folder's entry is on disk too.
 * @param {string} dir
 */
async function syncDir (dir) {
  try {
    const handle = await open(dir, O_RDONLY)
    try { await handle.sync() } finally { await handle.close() }
  } catch {
    // Some systems cannot fsync a folder; the rename is still atomic there.
  }
}
