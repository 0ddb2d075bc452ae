// @ts-check
// sup startup [systemd]: a systemd unit that starts the daemon at boot and resurrects the
// saved apps. Printed for a normal user (with the command to install it as root); written and
// enabled as root. Needs no daemon.
import { mkdirSync, writeFileSync } from 'node:fs'
import { SupError } from '../../ipc/errors.js'
import { resolvePaths } from '../../ipc/paths.js'
import { SUP_BIN, checkPlatform, isRoot, resolveTarget, rootCommand, systemctl, systemdRunning, unitPath } from '../startup/systemd-host.js'
import { renderSystemdUnit } from '../startup/systemd-unit.js'
import { version } from '../version.js'

/**
 * @param {string | undefined} platform
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (platform, { io, opts }) {
  checkPlatform({ platform })
  const target = resolveTarget(opts, io.env)
  const unit = renderSystemdUnit({ user: target.user, supHome: target.supHome, pidFile: resolvePaths({ SUP_HOME: target.supHome, HOME: target.home }).pidFile, node: process.execPath, supBin: SUP_BIN, path: unitPath(io.env), version })
  // A normal user cannot write system units; a --unit-dir of one's own can be written.
  const write = !opts.print && (isRoot() || !target.defaultDir)
  const enable = write && isRoot() && target.defaultDir && systemdRunning()
  /** @type {string[]} */
  const ran = []
  /** @type {string[]} */
  const next = []

  if (write) {
    try {
      mkdirSync(target.unitDir, { recursive: true })
      writeFileSync(target.unitFile, unit, { mode: 0o644 })
    } catch (err) {
      throw new SupError('SUP_ERR_STARTUP_WRITE_FAILED', { file: target.unitFile, reason: /** @type {Error} */ (err).message }, { cause: err })
    }
    if (enable) {
      ran.push(systemctl(['daemon-reload']), systemctl(['enable', `${target.service}.service`]))
      next.push(`to switch to it now: sup kill (as ${target.user}), then systemctl start ${target.service}`)
    } else {
      const why = target.defaultDir ? 'systemd is not running here' : 'the unit is not in /etc/systemd/system'
      next.push(`${why}, so nothing was enabled; on the host that runs it: systemctl daemon-reload && systemctl enable ${target.service}.service`)
    }
  } else if (!opts.print) {
    next.push(`to install it, run as root: ${rootCommand('startup', target, io.env)}`)
  }

  if (opts.json) {
    io.out(JSON.stringify({ service: target.service, unit_file: target.unitFile, user: target.user, sup_home: target.supHome, written: write, enabled: enable, ran, next, unit }))
    return 0
  }
  if (!write) {
    io.out(unit.trimEnd())
    for (const line of next) io.err(`sup: ${line}`)
    return 0
  }
  io.out(`wrote ${target.unitFile} (the daemon runs as ${target.user}, SUP_HOME ${target.supHome})`)
  for (const command of ran) io.out(`ran: ${command}`)
  if (enable) io.out(`at every boot sup starts and resurrects ${target.supHome}/dump.json`)
  for (const line of next) io.out(line)
  return 0
}
