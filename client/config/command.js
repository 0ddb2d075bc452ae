// @ts-check
// A command string as an app's script (`sup start "npm run serve"`): PM2 runs these through a
// shell, and so does sup. It is the one place sup uses a shell, because the user asked for
// one by writing a command line; a script file or a bare command name is always run directly.
import path from 'node:path'
import { findOnPath } from './interpreter.js'

/**
 * An entry's script under any of PM2's names for it: `script`, `cmd`, `command`.
 * @param {Record<string, unknown>} app
 * @returns {unknown}
 */
export function scriptOf (app) {
  return app.script ?? app.cmd ?? app.command
}

/**
 * Whether a script value is a command line rather than a file or a command name: it has
 * words. (A file whose name has spaces is taken as a file: the caller checks that first.)
 * @param {unknown} script
 */
export function isCommandString (script) {
  return typeof script === 'string' && /\s/.test(script.trim())
}

/**
 * The app name a command string gets: its words up to the first option or quote, joined by
 * "-" (`npm run serve` → `npm-run-serve`, `node -e '...'` → `node`). PM2 names the app after
 * the whole command, but a name is a CLI target and a log file name, so it has no spaces.
 * @param {string} command
 */
export function commandName (command) {
  const words = []
  for (const word of command.trim().split(/\s+/)) {
    if (!/^[\w./@:+=][\w./@:+=-]*$/.test(word)) break
    words.push(path.basename(word))
  }
  const name = words.join('-').replace(/[^A-Za-z0-9._-]/g, '-').replace(/^[.-]+/, '').slice(0, 64)
  return name || 'command'
}

/**
 * How a command string runs: bash (as PM2 does) or else /bin/sh, with `-c`. Script
 * arguments reach the command as "$@", so `sup start "npm run serve" -- --port 3000` works
 * without quoting them into the string.
 * @param {string} command
 * @param {string[]} args the script arguments given beside it
 * @param {string} name $0 of the shell, shown by ps
 * @returns {{ file: string, args: string[] }}
 */
export function shellCommand (command, args, name) {
  const shell = findOnPath('bash') ?? '/bin/sh'
  const line = command.trim()
  return { file: shell, args: args.length === 0 ? ['-c', line] : ['-c', `${line} "$@"`, name, ...args] }
}
