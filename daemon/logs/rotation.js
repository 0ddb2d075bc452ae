// @ts-check
// Names of rotated log files and which of them to delete: pure functions of names and times.
// `api-out.log` rotates to `api-out__2026-11-23_06-00-00-123.log` (UTC, pm2-logrotate's
// `__` separator plus milliseconds), `.gz` appended once compressed. Timestamped names never
// need renaming again, so compression and retention cannot race with the next rotation.
import { basename, dirname, extname, join } from 'node:path'

const STAMP = String.raw`\d{4}-\d{2}-\d{2}_\d{2}-\d{2}-\d{2}-\d{3}`

/**
 * @typedef {{ name: string, stamp: string, seq: number, gz: boolean }} RotatedFile
 */

/**
 * The live file's name split around where the stamp goes.
 * @param {string} path
 */
function splitName (path) {
  const name = basename(path)
  const ext = extname(name)
  return { dir: dirname(path), stem: name.slice(0, name.length - ext.length), ext }
}

/**
 * UTC time as it appears in a rotated file's name.
 * @param {number} time ms
 */
export function formatStamp (time) {
  const iso = new Date(time).toISOString() // 2026-11-23T06:00:00.123Z
  return `${iso.slice(0, 10)}_${iso.slice(11, 13)}-${iso.slice(14, 16)}-${iso.slice(17, 19)}-${iso.slice(20, 23)}`
}

/**
 * Where the live file goes when it rotates. `seq` > 0 tells apart rotations within one ms.
 * @param {string} path the live file
 * @param {number} time ms
 * @param {number} [seq]
 */
export function rotatedPath (path, time, seq = 0) {
  const { dir, stem, ext } = splitName(path)
  return join(dir, `${stem}__${formatStamp(time)}${seq > 0 ? `_${seq}` : ''}${ext}`)
}

/** @param {string} text */
const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * Read a file name as a rotation of `path`, or null when it is not one.
 * @param {string} path the live file
 * @param {string} name a file name in the same folder
 * @returns {RotatedFile | null}
 */
export function parseRotated (path, name) {
  const { stem, ext } = splitName(path)
  const match = new RegExp(`^${escapeRegExp(stem)}__(${STAMP})(?:_(\\d+))?${escapeRegExp(ext)}(\\.gz)?$`).exec(name)
  if (!match) return null
  return { name, stamp: match[1], seq: match[2] ? Number(match[2]) : 0, gz: match[3] !== undefined }
}

/**
 * The rotations of `path` among `names`, oldest first.
 * @param {string} path
 * @param {string[]} names
 */
export function listRotated (path, names) {
  return names
    .map((name) => parseRotated(path, name))
    .filter((file) => file !== null)
    .sort((a, b) => a.stamp < b.stamp ? -1 : a.stamp > b.stamp ? 1 : a.seq - b.seq || Number(a.gz) - Number(b.gz))
}

/**
 * Files to delete so that `retain` rotations are kept: the oldest beyond that, and any plain
 * file whose `.gz` exists (compression finished but the daemon stopped before unlinking it).
 * @param {string} path the live file
 * @param {string[]} names the folder's file names
 * @param {number} retain rotated files to keep
 * @returns {string[]} names to delete
 */
export function expiredRotations (path, names, retain) {
  const files = listRotated(path, names)
  const compressed = new Set(files.filter((f) => f.gz).map((f) => f.name.slice(0, -3)))
  const superseded = files.filter((f) => !f.gz && compressed.has(f.name))
  const kept = files.filter((f) => f.gz || !compressed.has(f.name))
  const expired = kept.slice(0, Math.max(0, kept.length - retain))
  return [...superseded, ...expired].map((f) => f.name)
}
