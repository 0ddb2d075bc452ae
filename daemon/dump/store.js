// @ts-check
// dump.json on disk: written atomically (temp file in the same folder, fsync, rename, fsync of
// the folder), the previous version kept as dump.json.bak, read back with a fall back to the
// .bak when dump.json is corrupt. PM2 writes its dump in place, so a crash or a full disk
// mid-write leaves a truncated file and an empty process list (PM2 #1035, #2653, #3776).
import { access, link, rename, unlink } from 'node:fs/promises'
import { dirname } from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { readOwnFile, writeFileAtomic as replaceFile } from '../../ipc/own-files.js'
import { parseDump } from './format.js'

/** More than any dump sup writes (the IPC frame limit is 16 MiB): a bigger file is not read. */
export const DUMP_MAX_BYTES = 64 * 1024 * 1024

/**
 * Replace `file` with `text` so that a reader, or the next boot, sees the old content or the
 * new one, never a mix; the old content stays in `<file>.bak`.
 * @param {string} file
 * @param {string} text
 */
export async function writeFileAtomic (file, text) {
  try {
    await replaceFile(file, text, { beforeRename: () => keepBackup(file) })
  } catch (err) {
    throw new SupError('SUP_ERR_DUMP_WRITE_FAILED', { file, dir: dirname(file), reason: /** @type {Error} */ (err).message }, { cause: err })
  }
}

/**
 * `<file>.bak` becomes a second name of the current file (a hard link: no copy, and `file`
 * itself never goes missing). Where links are not allowed, a copy does.
 * @param {string} file
 */
async function keepBackup (file) {
  const bak = `${file}.bak`
  await unlink(bak).catch(ignoreMissing)
  try {
    await link(file, bak)
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    if (code === 'ENOENT') return
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EXDEV' && code !== 'EMLINK') throw err
    await replaceFile(bak, await readOwnFile(file, DUMP_MAX_BYTES), { durable: false })
  }
}

/** @param {unknown} err */
function ignoreMissing (err) {
  if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ENOENT') throw err
}

/**
 * @typedef {object} LoadedDump
 * @property {import('./format.js').Dump | null} dump null when there is none to use
 * @property {string | null} source the file it came from
 * @property {string[]} warnings what a person should know: a corrupt file, skipped apps
 */

/**
 * Read the dump: dump.json, or dump.json.bak when dump.json is corrupt. A corrupt dump.json is
 * moved aside to dump.json.corrupt, so the next write does not push the good .bak out, and
 * while dump.json is missing with a .corrupt beside it, the .bak is what was saved.
 * A missing dump.json with no .corrupt beside it means "nothing saved" (it was never written,
 * or was removed on purpose), not a reason to fall back. Never throws for a bad file: it says
 * so in `warnings`.
 * @param {string} file
 * @returns {Promise<LoadedDump>}
 */
export async function loadDump (file) {
  /** @type {string[]} */
  const warnings = []
  const main = await readOne(file)
  const aside = `${file}.corrupt`
  if (main.status === 'missing') {
    // Missing because an earlier read found it corrupt and moved it aside: what was saved is
    // still the .bak (PM2 deletes a broken dump and reads its .bak from then on).
    if (!await exists(aside)) return { dump: null, source: null, warnings }
    warnings.push(`${file} is missing since it was found corrupt (kept as ${aside})`)
  } else if (main.status === 'ok') {
    return { dump: main.dump, source: file, warnings: main.skipped }
  } else {
    const moved = await rename(file, aside).then(() => true, () => false)
    warnings.push(`${main.error.message}${moved ? `; moved it to ${aside}` : ''}`)
  }
  const bak = await readOne(`${file}.bak`)
  if (bak.status === 'ok') {
    warnings.push(`using ${file}.bak (saved ${bak.dump.saved_at}) instead`, ...bak.skipped)
    return { dump: bak.dump, source: `${file}.bak`, warnings }
  }
  warnings.push(bak.status === 'missing' ? `there is no ${file}.bak to fall back on: no saved apps` : `${bak.error.message}: no saved apps`)
  return { dump: null, source: null, warnings }
}

/** @param {string} file */
async function exists (file) {
  return access(file).then(() => true, () => false)
}

/**
 * @param {string} file
 * @returns {Promise<{ status: 'missing' } | { status: 'ok', dump: import('./format.js').Dump, skipped: string[] } | { status: 'bad', error: SupError }>}
 */
async function readOne (file) {
  let text
  try {
    text = await readOwnFile(file, DUMP_MAX_BYTES)
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return { status: 'missing' }
    return { status: 'bad', error: new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason: /** @type {Error} */ (err).message }, { cause: err }) }
  }
  try {
    const { dump, skipped } = parseDump(text, file)
    return { status: 'ok', dump, skipped: skipped.map((s) => `${file}: ${s}; it was left out`) }
  } catch (err) {
    return { status: 'bad', error: /** @type {SupError} */ (err) }
  }
}
