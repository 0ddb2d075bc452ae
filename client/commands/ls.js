// @ts-check
// sup ls [--json]: reads the daemon's cached figures; never triggers a sampling pass.
import { connectDaemon } from '../daemon.js'
import { formatDuration, renderLogWarnings, renderWorkers } from '../format.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    const rows = await conn.request('app.list')
    if (opts.json) {
      io.out(JSON.stringify(rows))
      return 0
    }
    io.out(renderWorkers(rows))
    for (const line of renderLogWarnings(rows)) io.out(line)
    // A daemon that predates dump.status just has no notes.
    const status = await conn.request('dump.status').catch(() => null)
    for (const line of dumpNotes(status, Date.now())) io.out(line)
    return 0
  } finally {
    await conn.close()
  }
}

/**
 * What people should know about the saved process list: a recovery after a crash, saved apps
 * that are not running, a dump that could not be read or written.
 * @param {any} status the daemon's dump.status answer
 * @param {number} now
 * @returns {string[]}
 */
export function dumpNotes (status, now) {
  if (!status?.enabled) return []
  const notes = []
  const { recovery } = status
  if (recovery) {
    const ago = formatDuration(now - recovery.at)
    const what = recovery.end === 'rebooted'
      ? 'the machine restarted while the daemon ran'
      : `the previous daemon (pid ${recovery.previous_pid}) died`
    const stopped = recovery.stopped ? `; first stopped ${recovery.stopped} of its workers that still ran` : ''
    const killed = recovery.killed ? `; killed ${recovery.killed} process(es) it left behind` : ''
    notes.push(`note: ${what}; restored ${recovery.apps.join(', ')} from ${recovery.source} ${ago} ago${stopped}${killed}`)
  }
  if (status.parked.length > 0) notes.push(`note: saved but not running: ${status.parked.join(', ')} (sup resurrect starts them)`)
  for (const warning of status.warnings) notes.push(`warning: ${warning}`)
  if (status.last_error) notes.push(`warning: the process list could not be saved: ${status.last_error}`)
  return notes
}
