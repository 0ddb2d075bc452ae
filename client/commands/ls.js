// @ts-check
// sup ls [--json] [--watch]: reads the daemon's cached figures; never triggers a sampling pass.
import { connectDaemon } from '../daemon.js'
import { formatDuration, renderLogWarnings, renderWorkers } from '../format.js'

/** How often --watch asks again. The daemon samples once a second, so faster shows nothing new. */
const WATCH_MS = 1000
/** Cursor home, clear the screen: the next table is drawn in place of the last. */
const CLEAR = '\u001b[H\u001b[2J'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    if (opts.watch) return await watch(conn, io, opts)
    if (opts.json) {
      io.out(JSON.stringify(await conn.request('app.list')))
      return 0
    }
    // Both requests go out at once: the notes cost no second round trip on the CLI's
    // most-used command. A daemon that predates dump.status just has no notes.
    const [rows, status] = await Promise.all([
      conn.request('app.list'),
      conn.request('dump.status').catch(() => null)
    ])
    io.out(renderWorkers(rows))
    for (const line of renderLogWarnings(rows)) io.out(line)
    for (const line of dumpNotes(status, Date.now())) io.out(line)
    return 0
  } finally {
    await conn.close()
  }
}

/**
 * --watch: the list again every second until Ctrl-C. In a terminal the table is redrawn in
 * place; elsewhere each refresh is printed after the last (with --json: one array per line).
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {import('../cli.js').CliIo} io
 * @param {Record<string, any>} opts
 */
async function watch (conn, io, opts) {
  const inPlace = Boolean(process.stdout.isTTY) && !opts.json
  const stop = new AbortController()
  const onSigint = () => stop.abort()
  process.once('SIGINT', onSigint)
  conn.once('close', () => stop.abort())
  try {
    while (!stop.signal.aborted) {
      const rows = await conn.request('app.list')
      const text = opts.json ? JSON.stringify(rows) : [renderWorkers(rows), ...renderLogWarnings(rows)].join('\n')
      if (inPlace) io.out(`${CLEAR}sup ls --watch · every ${WATCH_MS / 1000}s · ${new Date().toLocaleTimeString()} · Ctrl-C stops\n\n${text}`)
      else io.out(text)
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, WATCH_MS)
        stop.signal.addEventListener('abort', () => { clearTimeout(timer); resolve(undefined) }, { once: true })
      })
    }
  } finally {
    process.off('SIGINT', onSigint)
  }
  return 0
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
