// @ts-check
// sup events [target]: the supervisor's decisions and their reasons (exits, restarts, crash
// loops, kills, memory limits, reloads, ...), oldest first; --follow keeps printing new ones.
import { connectDaemon } from '../daemon.js'
import { colorEnabled, paint } from '../format.js'
import { formatDate } from '../../ipc/date-format.js'
import { SupError } from '../../ipc/errors.js'
import { CLOSE_SLOW_SUBSCRIBER } from '../../ipc/protocol.js'
import { escapeControls, stringifyForTerminal } from '../../ipc/terminal-text.js'

/** @typedef {import('../../ipc/events.js').SupEvent} SupEvent */

/**
 * @param {string | undefined} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const limit = Number(opts.lines)
  if (!Number.isInteger(limit) || limit < 1) throw new SupError('SUP_ERR_CLI_USAGE', { reason: `--lines must be a whole number above 0, not "${opts.lines}"` })
  const print = opts.json ? (/** @type {SupEvent} */ e) => io.out(stringifyForTerminal(e)) : makePrinter(io)
  // As sup ls: the history is on disk, and the daemon that reads it back starts on demand.
  const conn = await connectDaemon(paths, { start: true })
  /** @type {SupEvent[] | null} held back until the past ones are printed */
  let early = []
  let last = 0
  const show = (/** @type {SupEvent} */ e) => {
    if (e.seq <= last) return
    last = e.seq
    print(e)
  }
  /** @type {{ events: SupEvent[], apps: string[] | null }} */
  const { events, apps } = await conn.request('events.list', { target: target ?? null, limit })
  if (opts.follow) {
    conn.onEvents({ event: (e) => { if (early) early.push(e); else show(e) } })
    // By the apps the target resolved to (a namespace: its apps), or the worker id itself.
    await conn.request('subscribe', { topics: ['event'], apps: apps ?? (target && target !== 'all' ? [target] : []) })
    // What happened between the list and the subscription.
    const since = await conn.request('events.list', { target: target ?? null, limit })
    events.push(...since.events)
  }
  for (const e of events) show(e)
  if (!opts.follow) {
    await conn.close()
    if (events.length === 0 && !opts.json) io.err(`sup: no events${target ? ` for "${target}"` : ''} yet`)
    return 0
  }
  for (const e of early ?? []) show(e)
  early = null
  const code = await new Promise((resolve) => {
    conn.once('close', resolve)
    process.once('SIGINT', () => conn.close().then(() => resolve(null)))
  })
  if (code === CLOSE_SLOW_SUBSCRIBER) throw new SupError('SUP_ERR_IPC_SUBSCRIBER_TOO_SLOW')
  return 0
}

const LEVEL_COLOR = /** @type {const} */ ({ info: null, warn: 'yellow', error: 'red' })

/**
 * One line per event: when, where, what, why.
 * @param {import('../cli.js').CliIo} io
 */
function makePrinter (io) {
  const color = colorEnabled()
  return (/** @type {SupEvent} */ e) => {
    const where = e.id === null ? e.app : `${e.app}:${e.id}`
    const tint = LEVEL_COLOR[e.level] ?? null
    const kind = e.kind.padEnd(14)
    io.out(`${formatDate(e.at, 'YYYY-MM-DD HH:mm:ss')}  ${where.padEnd(16)} ${tint ? paint(tint, kind, color) : kind} ${escapeControls(e.message)}`)
  }
}
