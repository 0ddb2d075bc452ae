// @ts-check
// What happens to a log file after it rotated, off the write path: gzip it (node:zlib,
// streamed, so a big file never sits in memory) and delete rotations beyond `retain`.
import { createReadStream, createWriteStream } from 'node:fs'
import { readdir, rename, unlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { pipeline } from 'node:stream/promises'
import { expiredRotations } from './rotation.js'

/**
 * Compress `file` to `file.gz`. The `.gz` appears whole (written as `.gz.tmp`, then renamed),
 * and the plain file goes only after that, so a crash leaves one complete copy or both;
 * pruning removes a plain file whose `.gz` exists.
 * @param {string} file
 */
export async function gzipFile (file) {
  const tmp = `${file}.gz.tmp`
  try {
    // node:zlib is loaded at the first compression, not at start-up (RSS).
    const { createGzip } = await import('node:zlib')
    await pipeline(createReadStream(file), createGzip(), createWriteStream(tmp, { mode: 0o600, flush: true }))
    await rename(tmp, `${file}.gz`)
  } catch (err) {
    await unlink(tmp).catch(() => {})
    throw err
  }
  await unlink(file)
}

/**
 * Delete the rotations of `path` beyond the newest `retain`.
 * @param {string} path the live file
 * @param {number} retain
 * @returns {Promise<string[]>} the deleted paths
 */
export async function pruneRotations (path, retain) {
  const dir = dirname(path)
  const names = await readdir(dir)
  const doomed = expiredRotations(path, names, retain).map((name) => join(dir, name))
  await Promise.all(doomed.map((file) => unlink(file).catch(() => {})))
  return doomed
}

/**
 * Every rotation of `path` (for `sup flush`).
 * @param {string} path
 */
export async function removeRotations (path) {
  return pruneRotations(path, 0).catch(() => [])
}
