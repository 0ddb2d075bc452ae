// @ts-check
// The `listen` entries of the apps `sup save` wrote to dump.json: what the .socket unit of
// `sup startup` holds (docs/deploy.md#socket-activation). `sup startup` runs as root and the
// dump is the user's: it is read as a regular file (never through a symlink, at most
// MAX_DUMP_BYTES), each app is checked against the schema of an app.start request and its
// `listen` with ipc/listen.js, as the daemon does before it runs anything (design §12).
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs'
import { APP_CONFIG_SCHEMA, APP_DEFAULTS } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { parseListen } from '../../ipc/listen.js'
import { validate } from '../../ipc/schema.js'

/** Far above any real dump (1024 apps with a large env each); a bigger file is not ours. */
export const MAX_DUMP_BYTES = 64 * 1024 * 1024

const CONFIG_KEYS = Object.keys(/** @type {{ properties: object }} */ (APP_CONFIG_SCHEMA).properties)

/**
 * @typedef {{ app: string, entry: string }} SavedListen one `listen` entry and the app it is for
 * @typedef {{ listen: SavedListen[], skipped: string[] }} SavedSockets
 */

/**
 * The dump's text, or null when there is none. A symlink, a non-regular file, a file of
 * another user (as root), or one over the cap is SUP_ERR_DUMP_CORRUPT.
 * @param {string} file
 * @param {{ uid?: number | null }} [owner] as root: the uid the dump must belong to (or root)
 * @returns {string | null}
 */
export function readDumpFile (file, { uid = null } = {}) {
  let fd
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK)
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    if (code === 'ENOENT') return null
    const reason = code === 'ELOOP' ? 'it is a symbolic link (sup reads its own files only)' : /** @type {Error} */ (err).message
    throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason }, { cause: err })
  }
  try {
    const stat = fstatSync(fd)
    if (!stat.isFile()) throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason: 'it is not a regular file' })
    if (uid !== null && stat.uid !== uid && stat.uid !== 0) throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason: `it belongs to uid ${stat.uid}, not to the daemon's user (uid ${uid})` })
    if (stat.size > MAX_DUMP_BYTES) throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason: `it is larger than ${MAX_DUMP_BYTES} bytes` })
    const buffer = Buffer.alloc(stat.size + 1)
    let length = 0
    // One byte more than fstat said: a file that grows while read is still held to the cap.
    for (let n; length < buffer.length && (n = readSync(fd, buffer, length, buffer.length - length, null)) > 0;) length += n
    if (length > MAX_DUMP_BYTES) throw new SupError('SUP_ERR_DUMP_CORRUPT', { file, reason: `it is larger than ${MAX_DUMP_BYTES} bytes` })
    return buffer.subarray(0, length).toString('utf8')
  } finally {
    closeSync(fd)
  }
}

/**
 * Every distinct `listen` entry of the saved fork-mode apps, in the order of the dump. An app
 * whose config fails the app.start schema or whose `listen` fails its parser is left out and
 * named in `skipped` (the daemon's resurrect leaves it out too); text that is not JSON gives
 * no sockets.
 * @param {string | null} text the dump (readDumpFile)
 * @returns {SavedSockets}
 */
export function savedListen (text) {
  /** @type {any} */
  let dump
  try {
    dump = JSON.parse(text ?? 'null')
  } catch {
    // Not the parser's message: it quotes the text, and this may be someone else's file.
    return { listen: [], skipped: [] }
  }
  const apps = Array.isArray(dump?.apps) ? dump.apps : []
  /** @type {SavedListen[]} */
  const listen = []
  /** @type {string[]} */
  const skipped = []
  const seen = new Set()
  for (const [index, app] of apps.entries()) {
    const checked = checkApp(app?.config)
    const name = typeof app?.config?.name === 'string' ? app.config.name : `#${index}`
    if (typeof checked === 'string') {
      skipped.push(`app ${JSON.stringify(name)}: ${checked}`)
      continue
    }
    if (checked.exec_mode !== 'fork') continue
    for (const entry of checked.listen) {
      if (seen.has(entry)) continue
      seen.add(entry)
      listen.push({ app: checked.name, entry })
    }
  }
  return { listen, skipped }
}

/**
 * The daemon's own check of a dump entry (daemon/dump/format.js): known keys with their
 * defaults, then the app.start schema; and `listen` canonical, as `sup start` writes it.
 * @param {unknown} raw
 * @returns {import('../../ipc/app-config.js').AppConfig | string} the config, or what is wrong
 */
function checkApp (raw) {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return 'no "config" object'
  /** @type {Record<string, unknown>} */
  const config = {}
  const withDefaults = /** @type {Record<string, unknown>} */ ({ ...APP_DEFAULTS, ...raw })
  for (const key of CONFIG_KEYS) if (withDefaults[key] !== undefined) config[key] = withDefaults[key]
  const problem = validate(APP_CONFIG_SCHEMA, config, 'config')
  if (problem) return problem
  const app = /** @type {import('../../ipc/app-config.js').AppConfig} */ (config)
  const specs = parseListen(app.listen)
  if ('error' in specs) return `listen ${JSON.stringify(specs.entry)}: ${specs.error}`
  const odd = specs.find((spec, i) => spec.name !== app.listen[i] || (spec.kind === 'unix' && !spec.path.startsWith('/')))
  if (odd) return `listen ${JSON.stringify(odd.name)} is not written as sup start writes it`
  return app
}
