// @ts-check
// sup unstartup [systemd]: disable and remove the unit `sup startup` wrote. Needs no daemon,
// and leaves a running daemon alone.
import { existsSync, unlinkSync } from 'node:fs'
import { basename } from 'node:path'
import { SupError } from '../../ipc/errors.js'
import { checkPlatform, isRoot, resolveTarget, rootCommand, systemctl, systemdRunning } from '../startup/systemd-host.js'

/**
 * @param {string | undefined} platform
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (platform, { io, opts }) {
  checkPlatform({ platform })
  const target = resolveTarget(opts, io.env)
  if (!existsSync(target.unitFile)) {
    io.out(`no unit at ${target.unitFile}: nothing to remove`)
    return 0
  }
  if (target.defaultDir && !isRoot()) {
    throw new SupError('SUP_ERR_STARTUP_NEEDS_ROOT', { file: target.unitFile, command: rootCommand('unstartup', target, io.env) })
  }
  const managed = isRoot() && target.defaultDir && systemdRunning()
  // The .socket unit startup wrote beside it for saved apps with `listen`.
  const files = [target.unitFile, ...(existsSync(target.socketFile) ? [target.socketFile] : [])]
  if (managed) io.out(`ran: ${systemctl(['disable', ...files.map((f) => basename(f))])}`)
  for (const file of files) {
    try {
      unlinkSync(file)
    } catch (err) {
      throw new SupError('SUP_ERR_STARTUP_WRITE_FAILED', { file, reason: /** @type {Error} */ (err).message }, { cause: err })
    }
    io.out(`removed ${file}`)
  }
  if (managed) io.out(`ran: ${systemctl(['daemon-reload'])}`)
  io.out('a daemon that runs now keeps running (sup kill stops it)')
  return 0
}
