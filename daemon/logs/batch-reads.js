// @ts-check
// Fewer, larger reads of a worker's stdout/stderr. A worker that logs a line per request makes
// one write per line; read as they come, each line wakes the daemon (epoll, a read, a JS
// callback, a file write through the thread pool): the daemon's cost per line, taken from its
// workers on a busy machine, was what cost an app logging every request two thirds of its
// throughput (docs/logs.md#reading-in-batches). So after a read the daemon leaves that stream
// unread for a few milliseconds and lets lines gather in the socket's buffer, then reads them
// all at once. The worker's writes still return at once (the buffer takes them); only the
// daemon's wake-ups go. The wait is sized from the stream's rate so that a read finds about
// TARGET_LINES lines or TARGET_BYTES bytes, well under what the socket holds before a writer
// would block (Linux counts each write's overhead: 167 writes of a 230-byte line, 93 of 1 KiB,
// 278 of short lines); a stream faster than that is read without waiting at all. A worker's
// pipe (logs/log-pipe.js) holds pages, not writes: its target is PIPE_SHARE of its pages, as
// many lines as fit in them at the stream's line length.
import { PIPE_PAGE, pipeSlots } from './log-pipe.js'

/** Lines (writes) a read should find: under 40 % of what a worker's socket holds of lines up to 500 B (167). */
export const TARGET_LINES = 64
/** Bytes a read should find: a quarter of what a worker's socket holds of 1 KiB lines. */
export const TARGET_BYTES = 24 * 1024
/** What share of a pipe's pages a read should find. */
const PIPE_SHARE = 0.4
/** The longest a stream waits to be read again: how far `sup logs -f` and `--time` may lag. */
export const MAX_WAIT_MS = 25
const NEWLINE = 0x0a

/**
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 * @typedef {{ reading?: boolean, readStop?: () => number, readStart?: () => number }} StreamHandle
 */

/**
 * @typedef {{ lines: number, bytes: number }} Target what a read should find
 */

/** A socket pair's. */
const SOCKET_TARGET = Object.freeze({ lines: TARGET_LINES, bytes: TARGET_BYTES })

/**
 * What a read of a pipe of `slots` pages should find, for lines of `lineBytes` on average: a
 * write shorter than a page goes into the last page when it fits there, so a page holds
 * floor(4096 / length) lines; a longer one takes pages of its own.
 * @param {number} slots
 * @param {number} lineBytes
 * @returns {Target}
 */
export function pipeTarget (slots, lineBytes) {
  const pages = PIPE_SHARE * slots
  const perPage = Math.max(1, Math.floor(PIPE_PAGE / Math.max(1, lineBytes)))
  return { lines: Math.max(1, Math.floor(pages * perPage)), bytes: Math.floor(pages * PIPE_PAGE) }
}

/**
 * How long to leave a stream unread after a read, from its rates (0: read on at once).
 * @param {number} linesPerMs
 * @param {number} bytesPerMs
 * @param {Target} [target]
 */
export function waitFor (linesPerMs, bytesPerMs, target = SOCKET_TARGET) {
  // A rate of 0 gives Infinity: the longest wait.
  const ms = Math.round(Math.min(target.lines / linesPerMs, target.bytes / bytesPerMs))
  return ms < 1 ? 0 : Math.min(ms, MAX_WAIT_MS)
}

/**
 * Read `readable` in batches: after each chunk, stop its handle for waitFor(rate) ms. Node's
 * streams have no public way to stop a socket without it reading on into the stream's buffer,
 * so this stops the handle itself and leaves `handle.reading` as net.Socket set it: net still
 * sees a reading handle (it pauses and resumes it for backpressure as before, and a stream it
 * paused is not restarted here). Streams without such a handle are read as they come.
 * @param {import('node:stream').Readable} readable
 * @param {{ timers?: Timers, now?: () => number }} [options]
 */
export function batchReads (readable, { timers = globalThis, now = () => performance.now() } = {}) {
  const handle = /** @type {StreamHandle | undefined} */ (/** @type {any} */ (readable)._handle)
  if (typeof handle?.readStop !== 'function' || typeof handle.readStart !== 'function') return
  const slots = pipeSlots(readable)
  let lineRate = 0
  let byteRate = 0
  let lastAt = now()
  /** @type {any} */
  let timer = null
  const restart = () => {
    timer = null
    // net stopped it meanwhile (the stream's buffer is full), or it is gone: leave it to net.
    if (readable.destroyed || /** @type {any} */ (readable)._handle !== handle || !handle.reading) return
    handle.readStart?.()
  }
  readable.on('data', (/** @type {Buffer} */ chunk) => {
    const at = now()
    const elapsed = Math.max(at - lastAt, 1)
    lastAt = at
    const lines = countLines(chunk)
    // Smoothed, so one late read does not swing the wait from one extreme to the other.
    lineRate = (lineRate + lines / elapsed) / 2
    byteRate = (byteRate + chunk.length / elapsed) / 2
    const target = slots === null ? SOCKET_TARGET : pipeTarget(slots, lineRate > 0 ? byteRate / lineRate : chunk.length)
    // Twice what a read should find: the socket may be full and its writer waiting (a flood,
    // or a late timer), and the rate seen is only what our reads let through. Read on.
    const full = lines >= 2 * target.lines || chunk.length >= 2 * target.bytes
    const wait = full ? 0 : waitFor(lineRate, byteRate, target)
    if (wait === 0 || timer !== null || !handle.reading) return
    handle.readStop?.()
    timer = timers.setTimeout(restart, wait)
  })
  readable.once('close', () => {
    if (timer !== null) timers.clearTimeout(timer)
    timer = null
  })
}

/** @param {Buffer} chunk */
function countLines (chunk) {
  let lines = 0
  for (let i = chunk.indexOf(NEWLINE); i !== -1; i = chunk.indexOf(NEWLINE, i + 1)) lines++
  return lines
}
