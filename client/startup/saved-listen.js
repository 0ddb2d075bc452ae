// @ts-check
// The `listen` entries of the apps `sup save` wrote to dump.json: what the .socket unit of
// `sup startup` holds (docs/deploy.md#socket-activation). Read as plain JSON: the CLI does not
// load the daemon's dump code, and a missing or unreadable dump just means no socket unit.
import { readFileSync } from 'node:fs'

/**
 * Every distinct entry of the saved fork-mode apps, in the order of the dump.
 * @param {string} dumpFile the dump.json of the daemon's home (ipc/paths.js)
 * @param {(file: string) => string} [read]
 * @returns {string[]}
 */
export function readSavedListen (dumpFile, read = (file) => readFileSync(file, 'utf8')) {
  let dump
  try {
    dump = JSON.parse(read(dumpFile))
  } catch {
    return []
  }
  const apps = Array.isArray(dump?.apps) ? dump.apps : []
  const entries = apps
    .map((/** @type {any} */ app) => app?.config)
    .filter((/** @type {any} */ config) => config?.exec_mode === 'fork' && Array.isArray(config.listen))
    .flatMap((/** @type {any} */ config) => config.listen.filter((/** @type {unknown} */ e) => typeof e === 'string'))
  return [...new Set(entries)]
}
