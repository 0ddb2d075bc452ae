// @ts-check
// sup logs [target]: the last lines from the daemon's ring, then new lines as they come.
import { connectDaemon } from '../daemon.js'
import { colorEnabled, paint } from '../format.js'
import { formatDate } from '../../ipc/date-format.js'
import { SupError } from '../../ipc/errors.js'
import { CLOSE_SLOW_SUBSCRIBER } from '../../ipc/protocol.js'
import { escapeControls, stringifyForTerminal } from '../../ipc/terminal-text.js'

/** @typedef {{ time: number, app: string, id: number, instance: number, stream: 'out' | 'err' | 'sup', line: string }} LogEntry */

/**
 * @param {string | undefined} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const lines = Number(opts.lines)
  if (!Number.isInteger(lines) || lines < 0) throw new SupError('SUP_ERR_CLI_USAGE', { reason: `--lines must be a whole number, not "${opts.lines}"` })
  const stream = opts.err ? 'err' : opts.out ? 'out' : 'both'
  const print = opts.json ? (/** @type {LogEntry} */ e) => io.out(stringifyForTerminal(e)) : makePrinter(io, opts)
  const conn = await connectDaemon(paths)

  // Subscribe before reading the ring, so no line falls between the two.
  /** @type {LogEntry[] | null} */
  let early = []
  /** @type {Set<string>} */
  let seen = new Set()
  const key = (/** @type {LogEntry} */ e) => `${e.time}|${e.id}|${e.stream}|${e.line}`
  const follow = !opts.nostream
  if (follow) {
    conn.onEvents({
      log: (entry) => {
        if (stream !== 'both' && entry.stream !== stream) return
        if (targetIsId(target) && entry.id !== Number(target)) return
        if (early) early.push(entry)
        else if (!seen.has(key(entry))) print(entry)
      }
    })
    await conn.request('subscribe', { topics: ['log'], apps: await followedApps(conn, target) })
  }
  const past = await conn.request('logs.tail', { target: target ?? null, lines, stream })
  for (const entry of past) print(entry)
  if (!follow) {
    await conn.close()
    return 0
  }
  seen = new Set(past.map(key))
  for (const entry of early ?? []) if (!seen.has(key(entry))) print(entry)
  early = null
  // Follow until interrupted or the daemon goes away.
  const code = await new Promise((resolve) => {
    conn.once('close', resolve)
    process.once('SIGINT', () => conn.close().then(() => resolve(null)))
  })
  if (code === CLOSE_SLOW_SUBSCRIBER) throw new SupError('SUP_ERR_IPC_SUBSCRIBER_TOO_SLOW')
  return 0
}

/**
 * What to subscribe to: the daemon passes on the lines of the apps (or worker ids) named, so a
 * namespace (`sup logs jobs`, as PM2's `pm2 logs <namespace>`) stands for its apps' names.
 * @param {import('../../ipc/transport.js').Connection} conn
 * @param {string | undefined} target
 * @returns {Promise<string[]>} empty: every app
 */
async function followedApps (conn, target) {
  if (!target || target === 'all') return []
  if (targetIsId(target)) return [target]
  /** @type {import('../../ipc/methods.js').WorkerRow[]} */
  const rows = await conn.request('app.list')
  if (rows.some((r) => r.name === target)) return [target]
  const inNamespace = [...new Set(rows.filter((r) => r.namespace === target).map((r) => r.name))]
  return inNamespace.length > 0 ? inNamespace : [target]
}

/** @param {string | undefined} target */
function targetIsId (target) {
  return target !== undefined && /^\d+$/.test(target)
}

/** PM2's `pm2 logs --timestamp` pattern when none is given. */
export const DEFAULT_TIMESTAMP = 'YYYY-MM-DD-HH:mm:ss'

/**
 * @param {import('../cli.js').CliIo} io
 * @param {Record<string, any>} opts --raw: the line alone and as the app wrote it, control characters
 *   included, stderr's on stderr (PM2's); --timestamp [pattern]: the time the line was written first, dayjs-style
 */
function makePrinter (io, opts) {
  const color = colorEnabled()
  const pattern = opts.timestamp === true ? DEFAULT_TIMESTAMP : opts.timestamp
  const stamp = pattern ? (/** @type {LogEntry} */ e) => `${formatDate(e.time, pattern)} ` : () => ''
  // The app's own lines alone: the supervisor's (exits, restarts) are left out.
  if (opts.raw) return (/** @type {LogEntry} */ e) => { if (e.stream !== 'sup') (e.stream === 'err' ? io.err : io.out)(`${stamp(e)}${e.line}`) }
  // An app's line may hold escape sequences (a title, a screen clear, a clipboard write):
  // shown as \x1b..., never obeyed, unless --raw asks for the bytes.
  return (/** @type {LogEntry} */ entry) => {
    const prefix = `${stamp(entry)}${escapeControls(entry.app)}[${entry.instance}]`
    const line = escapeControls(entry.line)
    if (entry.stream === 'sup') io.out(`${paint('yellow', `${prefix} sup |`, color)} ${line}`)
    else if (entry.stream === 'err') io.out(`${paint('red', `${prefix} err |`, color)} ${line}`)
    else io.out(`${paint('cyan', `${prefix} out |`, color)} ${line}`)
  }
}
