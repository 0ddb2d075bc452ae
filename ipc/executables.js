// @ts-check
// Finding programs to run, for the CLI (interpreters, command strings) and the daemon (which
// node runs an app): both sides need the same answer, so it lives here, beside the paths.
import fs from 'node:fs'
import path from 'node:path'

/**
 * Whether `file` is a regular file we may execute.
 * @param {string} file
 */
export function isExecutableFile (file) {
  try {
    fs.accessSync(file, fs.constants.X_OK)
    return fs.statSync(file).isFile()
  } catch {
    return false
  }
}

/**
 * The absolute path of a bare command name on a PATH (relative entries skipped, as a shell
 * would not want them for a supervisor), or null.
 * @param {string} name a bare name such as "python3"
 * @param {string | undefined} [searchPath] PATH to search; the process's own by default
 * @returns {string | null}
 */
export function findOnPath (name, searchPath = process.env.PATH) {
  for (const dir of (searchPath ?? '').split(path.delimiter)) {
    if (!path.isAbsolute(dir)) continue
    const file = path.join(dir, name)
    if (isExecutableFile(file)) return file
  }
  return null
}
