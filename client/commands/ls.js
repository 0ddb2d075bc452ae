// @ts-check
// sup ls [--json] [--watch]: reads the daemon's cached figures; never triggers a sampling pass.
import { inspect } from 'node:util'
import { connectDaemon } from '../daemon.js'
import { SupError } from '../../ipc/errors.js'
import { formatBytes, formatDuration, renderLogWarnings, renderRestartNotes, renderWorkers } from '../format.js'
import { escapeDeep } from '../../ipc/terminal-text.js'

/** How often --watch asks again. The daemon samples once a second, so faster shows nothing new. */
const WATCH_MS = 1000
/** Cursor home, clear the screen: the next table is drawn in place of the last. */
const CLEAR = '\u001b[H\u001b[2J'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const order = opts.sort === undefined ? null : parseSort(opts.sort)
  // The listing goes right behind hello (one round trip), and the CLI leaves without waiting
  // for the daemon's close: a `sup ls` is mostly Node's own start-up (docs/benchmarks.md).
  const conn = await connectDaemon(paths, { start: true, pipeline: !opts.watch, early: io.earlyStart })
  try {
    if (opts.watch) return await watch(conn, io, opts)
    if (opts.pm2) {
      io.out(renderPm2List(await pm2List(conn), opts.pm2))
      return 0
    }
    if (opts.json) {
      const rows = await conn.request('app.list')
      io.out(JSON.stringify(order ? sortRows(rows, order) : rows))
      return 0
    }
    if (opts.miniList) {
      for (const line of renderMiniList(escapeDeep(await conn.request('app.list')))) io.out(line)
      return 0
    }
    // Both requests go out at once: the notes cost no second round trip on the CLI's
    // most-used command. A daemon that predates dump.status just has no notes. Each note
    // comes once (the daemon marks it told) and on stderr, out of `sup ls | …` pipes.
    // Names, paths and messages in them may be anyone's text: escaped for the terminal.
    const [rows, status] = escapeDeep(await Promise.all([
      conn.request('app.list'),
      conn.request('dump.status', { unreported: true }).catch(() => null)
    ]))
    io.out(renderWorkers(order ? sortRows(rows, order) : rows))
    for (const line of renderLogWarnings(rows)) io.out(line)
    for (const line of renderRestartNotes(rows, Date.now())) io.out(line)
    // Notes are warnings for people: -s hushes them (io.warn), and none reach stdout.
    for (const line of dumpNotes(status, Date.now())) (io.warn ?? io.err)(line)
    return 0
  } finally {
    if (opts.watch) await conn.close()
    else conn.leave()
  }
}

/**
 * The workers as `pm2 jlist` shows them: each app's settings and log paths come from its describe.
 * @param {import('../../ipc/transport.js').Connection} conn
 */
async function pm2List (conn) {
  /** @type {import('../../ipc/methods.js').WorkerRow[]} */
  const rows = await conn.request('app.list')
  const names = [...new Set(rows.map((row) => row.name))]
  const described = await Promise.all(names.map((target) => conn.request('app.describe', { target })))
  const apps = new Map(described.map((app) => [app.name, app]))
  const { toPm2 } = await import('../pm2-list.js')
  const now = Date.now()
  return rows.map((row) => toPm2(row, apps.get(row.name), now))
}

/**
 * jlist: one line of JSON; prettylist: the list as PM2 prints it, util.inspect's JavaScript
 * literal (`status: 'online'`), which PM2 users' scripts grep.
 * @param {unknown[]} list
 * @param {'jlist' | 'prettylist'} form
 */
function renderPm2List (list, form) {
  return form === 'jlist' ? JSON.stringify(list) : inspect(list, false, null, false)
}

/** The fields `--sort` takes: PM2's (`namespace` aside: rows do not carry it), and restarts. */
const SORT_FIELDS = /** @type {const} */ (['name', 'id', 'pid', 'cpu', 'memory', 'uptime', 'status', 'restarts'])

/**
 * `--sort <field>[:asc|desc]`, as PM2 reads it.
 * @param {string} spec
 * @returns {{ field: typeof SORT_FIELDS[number], desc: boolean }}
 */
export function parseSort (spec) {
  const [field, order = 'asc', ...rest] = spec.toLowerCase().split(':')
  const known = /** @type {readonly string[]} */ (SORT_FIELDS).includes(field)
  // PM2 ignores a field it does not know and lists in its default order.
  if (!known || rest.length > 0 || (order !== 'asc' && order !== 'desc')) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `--sort takes <field>[:asc|desc] with a field among ${SORT_FIELDS.join(', ')}; got "${spec}"` })
  }
  return { field: /** @type {typeof SORT_FIELDS[number]} */ (field), desc: order === 'desc' }
}

/**
 * A stable sort (equal rows keep the daemon's id order), nulls (no pid) first as PM2's 0.
 * @param {import('../../ipc/methods.js').WorkerRow[]} rows
 * @param {{ field: typeof SORT_FIELDS[number], desc: boolean }} order
 */
export function sortRows (rows, { field, desc }) {
  const key = (/** @type {import('../../ipc/methods.js').WorkerRow} */ row) => row[field] ?? -1
  return [...rows].sort((a, b) => {
    const [x, y] = [key(a), key(b)]
    const cmp = x < y ? -1 : x > y ? 1 : 0
    return desc ? -cmp : cmp
  })
}

/**
 * `ls -m`: PM2's "mini list", a block of `key : value` lines per worker, no table, no colour.
 * @param {import('../../ipc/methods.js').WorkerRow[]} rows
 * @returns {string[]}
 */
export function renderMiniList (rows) {
  return rows.flatMap((r) => [
    `+--- ${r.name}`,
    `pid : ${r.pid ?? 0}`,
    `id : ${r.id}`,
    `instance : ${r.instance}`,
    `status : ${r.status}`,
    `mode : ${r.mode}`,
    `restarted : ${r.restarts}`,
    `uptime : ${r.status === 'online' ? formatDuration(r.uptime) : 0}`,
    `memory usage : ${formatBytes(r.memory)}`,
    ''
  ])
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
      const shown = escapeDeep(rows)
      const text = opts.json ? JSON.stringify(rows) : [renderWorkers(shown), ...renderLogWarnings(shown), ...renderRestartNotes(shown, Date.now())].join('\n')
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
