// @ts-check
// Workers' stdout and stderr as pipes rather than the socket pairs Node makes for
// `stdio: 'pipe'` (issue 22, docs/logs.md#pipes-not-socket-pairs). A pipe merges small writes
// into its pages and holds about 64 KiB of them whatever their count, where a socket pair
// keeps one buffer per write and counts its overhead (167 writes of a 230-byte line): so the
// daemon can let more lines gather between two reads, and each read takes them from a few
// pages instead of freeing every write's buffer. Node cannot make a pipe, so each is a FIFO
// made by `mkfifo` in a directory of our own (mkdtemp: 0700, unique), opened at both ends and
// unlinked at once: nothing of it is left on disk, and no one else could have opened it. When
// `mkfifo` is missing or fails, workers get socket pairs, as before, and the daemon logs why once.
import { execFile } from 'node:child_process'
import { closeSync, constants, fstatSync, openSync, readSync, writeSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import net from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const { O_RDONLY, O_WRONLY, O_NONBLOCK, O_NOFOLLOW } = constants

/** The unit a pipe holds writes in on Linux (a page), and what its capacity is measured with. */
export const PIPE_PAGE = 4096
/** What a pipe's capacity is counted up to (Linux's default is 16 pages). */
const MAX_SLOTS = 256

/** @type {WeakMap<object, number>} the read end's socket → the pages its pipe holds */
const slotsOf = new WeakMap()

/**
 * How many pages a worker's stream holds before its writer waits: a number for a pipe made
 * here, null for anything else (a socket pair, a stream from another node's primary).
 * @param {object} readable
 * @returns {number | null}
 */
export function pipeSlots (readable) {
  return slotsOf.get(readable) ?? null
}

/**
 * @typedef {object} LogPipe one stream of a worker
 * @property {number} write the end the worker gets (blocking, as a program's stdout expects); close it once spawned
 * @property {net.Socket} readable the daemon's end
 *
 * @typedef {{ out: LogPipe, err: LogPipe }} LogPipePair
 */

/** How many pairs are kept ready beyond what a start asks for, so a restart finds one. */
const LOW = 2
/** The most pairs kept ready (a start of more workers than this gets socket pairs for the rest). */
const MAX_STOCK = 64

/**
 * @typedef {{ read: number, write: number, slots: number }} Ends
 */

/**
 * Makes the pipes of each worker, one per daemon. The daemon never waits for a child process on
 * its event loop, so `mkfifo` runs ahead: a start reserves pipes for its workers before they
 * spawn (effects.prepare), each spawn takes a pair from the stock, and the stock is topped up
 * behind it. A spawn that finds none (a burst of restarts) gets socket pairs: never an error.
 */
export class LogPipes {
  /**
   * @param {{ mkfifo?: string, dir?: () => string, warn?: (message: string) => void }} [options]
   *   mkfifo: the program (tests give a missing one); dir: where each batch's private directory is made
   */
  constructor ({ mkfifo = 'mkfifo', dir = tmpdir, warn = () => {} } = {}) {
    this.mkfifo = mkfifo
    this.dir = dir
    this.warn = warn
    /** @type {Array<{ out: Ends, err: Ends }>} pairs made and not yet given */
    this.stock = []
    /** @type {Promise<void> | null} */
    this.filling = null
    /** @type {string | null} why pipes are not made any more (every worker then gets socket pairs) */
    this.unavailable = null
  }

  /**
   * Have pipes ready for `count` workers (and a few more for their restarts).
   * @param {number} count
   */
  async reserve (count) {
    const wanted = Math.min(MAX_STOCK, count + LOW)
    while (this.unavailable === null && this.stock.length < wanted) {
      const before = this.stock.length
      await this.fill(wanted - before)
      if (this.stock.length <= before) break
    }
  }

  /**
   * A worker's stdout and stderr pipes, or null (then it gets socket pairs). Never throws.
   * @returns {LogPipePair | null}
   */
  take () {
    const pair = this.stock.shift()
    if (this.stock.length < LOW && this.unavailable === null) this.fill(LOW - this.stock.length).catch(() => {})
    return pair ? { out: readEnd(pair.out), err: readEnd(pair.err) } : null
  }

  /** Close what is in stock (a daemon that stops). */
  close () {
    for (const { out, err } of this.stock.splice(0)) {
      for (const fd of [out.read, out.write, err.read, err.write]) closeQuietly(fd)
    }
  }

  /**
   * Make `count` pairs (one batch at a time; a caller during a batch waits for it).
   * @param {number} count
   * @returns {Promise<void>}
   */
  fill (count) {
    this.filling ??= this.makeBatch(count).finally(() => { this.filling = null })
    return this.filling
  }

  /** @param {number} count */
  async makeBatch (count) {
    /** @type {number[]} */
    const opened = []
    /** @type {string | null} */
    let dir = null
    try {
      const made = await mkdtemp(join(this.dir(), 'sup-pipe-'))
      dir = made
      const paths = Array.from({ length: 2 * count }, (_, i) => join(made, String(i)))
      await run(this.mkfifo, ['-m', '600', '--', ...paths])
      const ends = paths.map((path) => openEnds(path, opened))
      for (let i = 0; i < count; i++) this.stock.push({ out: ends[2 * i], err: ends[2 * i + 1] })
    } catch (error) {
      for (const fd of opened) closeQuietly(fd)
      this.unavailable = /** @type {Error} */ (error).message
      this.warn(`workers' output goes through socket pairs, not pipes: ${this.unavailable}`)
    } finally {
      if (dir !== null) await rm(dir, { recursive: true, force: true }).catch(() => {})
    }
  }
}

/**
 * @param {string} file
 * @param {string[]} args
 * @returns {Promise<void>}
 */
function run (file, args) {
  return new Promise((resolve, reject) => {
    execFile(file, args, { timeout: 10_000 }, (error, _stdout, stderr) => {
      if (error) reject(new Error(`${file}: ${String(stderr).trim() || error.message}`))
      else resolve()
    })
  })
}

/** @param {number} fd */
function closeQuietly (fd) {
  try { closeSync(fd) } catch {}
}

/**
 * The daemon's end of a pipe as a stream, its capacity noted for batchReads.
 * @param {Ends} ends
 * @returns {LogPipe}
 */
function readEnd ({ read, write, slots }) {
  const readable = new net.Socket({ fd: read, readable: true, writable: false })
  slotsOf.set(readable, slots)
  return { write, readable }
}

/**
 * Open a FIFO just made at both ends (the read end first, so neither open waits), check it is
 * the FIFO we made, measure what it holds.
 * @param {string} path
 * @param {number[]} opened
 * @returns {Ends}
 */
function openEnds (path, opened) {
  const read = openSync(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
  opened.push(read)
  const stat = fstatSync(read)
  const uid = process.geteuid?.()
  if (!stat.isFIFO() || (uid !== undefined && stat.uid !== uid)) throw new Error(`${path} is not the FIFO just made`)
  const slots = measureSlots(path, read)
  const write = openSync(path, O_WRONLY | O_NOFOLLOW)
  opened.push(write)
  return { read, write, slots }
}

/**
 * The pages a pipe holds: page-sized writes through a non-blocking writer of its own until the
 * pipe is full, then read back. 16 by default; fewer where the user has used up
 * /proc/sys/fs/pipe-user-pages-soft (then Linux gives new pipes 1 or 2).
 * @param {string} path
 * @param {number} read
 */
function measureSlots (path, read) {
  const probe = openSync(path, O_WRONLY | O_NONBLOCK | O_NOFOLLOW)
  const page = Buffer.alloc(PIPE_PAGE)
  let slots = 0
  try {
    for (; slots < MAX_SLOTS; slots++) writeSync(probe, page)
  } catch (error) {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EAGAIN') throw error
  } finally {
    closeSync(probe)
  }
  const sink = Buffer.allocUnsafe(64 * 1024)
  // The probe was the only writer: once empty, the pipe reads as at its end.
  while (readSync(read, sink) > 0);
  return slots
}
