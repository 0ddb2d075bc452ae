// @ts-check
// Which changed paths do not restart an app: node_modules and .git always, the app's own log
// files (writing a log must not restart the app that wrote it), and ignore_watch. Pure.
import { basename, isAbsolute, relative, sep } from 'node:path'
import { createRequire } from 'node:module'

// picomatch is loaded by the first watch, not with the daemon (see watch-restart.js).
const require = createRequire(import.meta.url)

const ALWAYS = new Set(['node_modules', '.git'])

/**
 * @param {object} options
 * @param {string[]} options.roots the watched paths, absolute
 * @param {string[]} options.patterns ignore_watch: globs or paths, relative to a root or absolute.
 *   One without a "/" matches a name at any depth (`logs`, `*.tmp`); one with a "/" matches a
 *   path from a root (`public/uploads`, `src/**\/*.test.js`). Anything under a match is ignored.
 * @param {string[]} [options.logFiles] absolute paths of the app's log files
 * @returns {(path: string) => boolean}
 */
export function buildIgnore ({ roots, patterns, logFiles = [] }) {
  /** @type {(glob: string, options: object) => (path: string) => boolean} */
  const picomatch = require('picomatch')
  const options = { dot: true }
  const byName = patterns.filter((p) => !p.includes('/')).map((p) => picomatch(p, options))
  const byPath = patterns.filter((p) => p.includes('/') && !isAbsolute(p)).map((p) => picomatch(p.replace(/^\.\//, '').replace(/\/$/, ''), options))
  const absolute = patterns.filter((p) => isAbsolute(p)).map((p) => picomatch(p.replace(/\/$/, ''), options))
  // A log file and its rotations (`api-out.log`, `api-out__<date>.log.gz`).
  const logStems = logFiles.map((file) => ({ file, stem: basename(file).replace(/\.[^.]*$/, '') }))

  return (path) => {
    if (logStems.some(({ file, stem }) => path === file || (path.startsWith(file.slice(0, file.length - basename(file).length)) && basename(path).startsWith(`${stem}__`)))) return true
    if (absolute.some((match) => prefixes(path.split(sep).join('/')).some((p) => match(p)))) return true
    for (const root of roots) {
      const rel = relative(root, path)
      if (rel.startsWith('..') || isAbsolute(rel)) continue
      const parts = rel === '' ? [] : rel.split(sep)
      if (parts.some((part) => ALWAYS.has(part))) return true
      if (parts.some((part) => byName.some((match) => match(part)))) return true
      if (prefixes(parts.join('/')).some((p) => byPath.some((match) => match(p)))) return true
    }
    return false
  }
}

/**
 * "a/b/c" → ["a", "a/b", "a/b/c"]; "/x/y" → ["/x", "/x/y"].
 * @param {string} path with "/" separators
 */
function prefixes (path) {
  const out = []
  for (let i = path.indexOf('/', 1); i !== -1; i = path.indexOf('/', i + 1)) out.push(path.slice(0, i))
  if (path) out.push(path)
  return out
}
