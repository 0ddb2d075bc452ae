// @ts-check
// sup startup [systemd]: a systemd unit that starts the daemon at boot and resurrects the
// saved apps. Printed for a normal user (with the command to install it as root); written and
// enabled as root. Needs no daemon.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { SupError } from '../../ipc/errors.js'
import { resolvePaths } from '../../ipc/paths.js'
import { SUP_BIN, checkPlatform, isRoot, resolveTarget, rootCommand, systemctl, systemdRunning, unitPath } from '../startup/systemd-host.js'
import { readDumpFile, savedListen } from '../startup/saved-listen.js'
import { renderSocketUnit, renderSystemdUnit } from '../startup/systemd-unit.js'
import { version } from '../version.js'

/**
 * @param {string | undefined} platform
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (platform, { io, opts }) {
  checkPlatform({ platform })
  const target = resolveTarget(opts, io.env)
  const paths = resolvePaths({ SUP_HOME: target.supHome, HOME: target.home })
  // Saved apps with `listen`: systemd holds their sockets in a .socket unit beside the service.
  // The dump is the user's and we may be root: read and checked as hostile (design §12).
  const saved = savedListen(readDumpFile(paths.dump, { uid: isRoot() ? target.uid : null }))
  const listen = saved.listen.map(({ entry }) => entry)
  const socketName = listen.length > 0 ? `${target.service}.socket` : null
  const socketUnit = socketName ? renderSocketUnit({ user: target.user, service: target.service, listen: saved.listen, version }) : null
  const unit = renderSystemdUnit({ user: target.user, supHome: target.supHome, pidFile: paths.pidFile, node: process.execPath, supBin: SUP_BIN, path: unitPath(io.env), version, socket: socketName })
  const units = [`${target.service}.service`, ...(socketName ? [socketName] : [])]
  // A normal user cannot write system units; a --unit-dir of one's own can be written.
  const write = !opts.print && (isRoot() || !target.defaultDir)
  const enable = write && isRoot() && target.defaultDir && systemdRunning()
  /** @type {string[]} */
  const ran = []
  /** @type {string[]} */
  const next = []
  const skipped = saved.skipped.map((why) => `left out of the socket unit, as resurrect leaves it out: ${why}`)

  if (write) {
    try {
      mkdirSync(target.unitDir, { recursive: true })
      writeUnit(target.unitFile, unit)
      if (socketUnit) writeUnit(target.socketFile, socketUnit)
      // No listen saved any more: a socket unit of an earlier startup would hold stale ports.
      else rmSync(target.socketFile, { force: true })
    } catch (err) {
      if (err instanceof SupError) throw err
      throw new SupError('SUP_ERR_STARTUP_WRITE_FAILED', { file: target.unitFile, reason: /** @type {Error} */ (err).message }, { cause: err })
    }
    if (enable) {
      ran.push(systemctl(['daemon-reload']), systemctl(['enable', ...units]))
      next.push(`to switch to it now: sup kill (as ${target.user}), then systemctl start ${units.join(' ')}`)
    } else {
      const why = target.defaultDir ? 'systemd is not running here' : 'the unit is not in /etc/systemd/system'
      next.push(`${why}, so nothing was enabled; on the host that runs it: systemctl daemon-reload && systemctl enable ${units.join(' ')}`)
    }
  } else if (!opts.print) {
    next.push(`to install it, run as root: ${rootCommand('startup', target, io.env)}`)
  }

  if (opts.json) {
    io.out(JSON.stringify({ service: target.service, unit_file: target.unitFile, user: target.user, sup_home: target.supHome, written: write, enabled: enable, ran, next, skipped: saved.skipped, unit, socket_unit_file: socketUnit ? target.socketFile : null, socket_unit: socketUnit, listen }))
    return 0
  }
  for (const line of skipped) io.err(`sup: ${line}`)
  if (!write) {
    io.out(unit.trimEnd())
    if (socketUnit) io.out(`\n# ${target.socketFile}\n${socketUnit.trimEnd()}`)
    for (const line of next) io.err(`sup: ${line}`)
    return 0
  }
  io.out(`wrote ${target.unitFile} (the daemon runs as ${target.user}, SUP_HOME ${target.supHome})`)
  if (socketUnit) io.out(`wrote ${target.socketFile} (systemd holds ${listen.join(', ')} for the saved apps)`)
  for (const command of ran) io.out(`ran: ${command}`)
  if (enable) io.out(`at every boot sup starts and resurrects ${target.supHome}/dump.json`)
  for (const line of next) io.out(line)
  return 0
}

/**
 * @param {string} file
 * @param {string} text
 */
function writeUnit (file, text) {
  try {
    writeFileSync(file, text, { mode: 0o644 })
  } catch (err) {
    throw new SupError('SUP_ERR_STARTUP_WRITE_FAILED', { file, reason: /** @type {Error} */ (err).message }, { cause: err })
  }
}
