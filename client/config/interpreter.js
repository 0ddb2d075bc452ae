// @ts-check
// Which program runs a script: by extension, then shebang, then the file itself when it is
// executable. Where a bare command name lives on PATH: ipc/executables.js.
import fs from 'node:fs'
import path from 'node:path'
import { findOnPath, isExecutableFile } from '../../ipc/executables.js'

export { findOnPath }

/** Interpreters by extension; null runs the script with node. */
const INTERPRETERS = /** @type {Record<string, string | null>} */ ({ '.js': null, '.mjs': null, '.cjs': null, '.py': 'python3', '.sh': 'bash', '.rb': 'ruby', '.php': 'php', '.pl': 'perl' })

/**
 * Choose how to run a script: by extension, then by shebang, then run it directly if it
 * is executable; otherwise node.
 * @param {string} scriptPath absolute
 * @returns {{ interpreter: string | null, interpreterArgs: string[] }}
 */
export function detectInterpreter (scriptPath) {
  const ext = path.extname(scriptPath).toLowerCase()
  if (Object.hasOwn(INTERPRETERS, ext)) return { interpreter: INTERPRETERS[ext], interpreterArgs: [] }
  const shebang = readShebang(scriptPath)
  if (shebang !== null) {
    const words = shebang.split(/\s+/).filter(Boolean)
    // `#!/usr/bin/env -S cmd args` and `#!/usr/bin/env cmd`: the command is what follows env
    if (words[0]?.endsWith('/env')) words.splice(0, words[1] === '-S' ? 2 : 1)
    const [command, ...interpreterArgs] = words
    if (command) return { interpreter: command === 'node' || command.endsWith('/node') ? null : command, interpreterArgs }
  }
  return { interpreter: isExecutableFile(scriptPath) ? 'none' : null, interpreterArgs: [] }
}

/**
 * @param {string} file
 * @returns {string | null} the shebang line without "#!", or null
 */
function readShebang (file) {
  let fd
  try {
    fd = fs.openSync(file, 'r')
    const buffer = Buffer.alloc(256)
    const line = buffer.subarray(0, fs.readSync(fd, buffer, 0, buffer.length, 0)).toString('utf8').split('\n')[0]
    return line.startsWith('#!') ? line.slice(2).trim() : null
  } catch {
    return null
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}
