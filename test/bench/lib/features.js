// Some scenarios measure features other branches are still building: they run once the
// feature is on this checkout and report "not available yet" until then.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { runCommand } from './procs.js'
import { ROOT, SUP_BIN } from './sides.js'

/** Does `sup --help` list this command? @param {string} command */
export async function cliHasCommand (command) {
  const { stdout } = await runCommand(process.execPath, [SUP_BIN, '--help'])
  return new RegExp(`^\\s+${command}\\b`, 'm').test(stdout)
}

/** Does any daemon module act on this config key? @param {string} key */
export function daemonReads (key) {
  const dir = join(ROOT, 'daemon')
  return readdirSync(dir, { recursive: true })
    .filter((f) => String(f).endsWith('.js'))
    .some((f) => readFileSync(join(dir, String(f)), 'utf8').includes(key))
}
