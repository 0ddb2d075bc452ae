// @ts-check
// The daemon's own log: one JSON object a line, in pino's shape ({"level":30,"time":…,
// "pid":…, fields…, "msg":…}; an `err` field as pino's serializer writes it), so what reads
// daemon.log is unchanged. Written in place of pino, whose ~25 files added about 7 MiB to the
// daemon's RSS and a tenth of its start-up for a log of a few lines a minute
// (docs/benchmarks.md). The part of pino's API the daemon uses: info/warn/error/debug with
// (fields, message) or (message), child(bindings), level.
import { closeSync, openSync, writeSync } from 'node:fs'

export const LEVELS = /** @type {const} */ ({ trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 })

/** @typedef {keyof typeof LEVELS | 'silent'} LevelName */

/**
 * @param {{ fd?: number, level?: LevelName, base?: Record<string, unknown>, write?: (line: string) => void }} [options]
 *   fd to write to (default 1, as pino's default destination), or `write` instead
 * @returns {import('pino').Logger} the pino type, so the modules that take a logger keep their annotations
 */
export function createLogger ({ fd = 1, level = 'info', base = {}, write } = {}) {
  const out = write ?? ((line) => {
    // A log line is never worth the daemon: a full disk or a closed stdout drops it.
    try { writeSync(fd, line) } catch {}
  })
  return /** @type {any} */ (new Logger(out, level === 'silent' ? Infinity : LEVELS[level], fieldsOf(base)))
}

/**
 * Lines appended to a file by path, synchronously (0600 when created), and reopened at that
 * path on demand: after SUP_HOME was deleted under the daemon (daemon/home-guard.js).
 * @param {string} path
 */
export function fileDestination (path) {
  let fd = openLog(path)
  return {
    /** @param {string} line */
    write (line) {
      if (fd === null) return
      // A line that cannot be written (disk full) is lost, never an exception.
      try { writeSync(fd, line) } catch {}
    },
    reopen () {
      const old = fd
      fd = openLog(path)
      if (old !== null) try { closeSync(old) } catch {}
    }
  }
}

/** @param {string} path */
function openLog (path) {
  try {
    return openSync(path, 'a', 0o600)
  } catch {
    return null
  }
}

class Logger {
  /**
   * @param {(line: string) => void} out
   * @param {number} min lowest level written
   * @param {string} bound `,"key":value` of the bindings, ready to splice
   */
  constructor (out, min, bound) {
    this.out = out
    this.min = min
    this.bound = bound
    this.level = Object.keys(LEVELS).find((k) => LEVELS[/** @type {keyof typeof LEVELS} */ (k)] === min) ?? 'silent'
  }

  /** @param {Record<string, unknown>} bindings */
  child (bindings) {
    return new Logger(this.out, this.min, this.bound + fieldsOf(bindings))
  }

  /** @param {unknown} a @param {string} [b] */
  trace (a, b) { this.write(10, a, b) }
  /** @param {unknown} a @param {string} [b] */
  debug (a, b) { this.write(20, a, b) }
  /** @param {unknown} a @param {string} [b] */
  info (a, b) { this.write(30, a, b) }
  /** @param {unknown} a @param {string} [b] */
  warn (a, b) { this.write(40, a, b) }
  /** @param {unknown} a @param {string} [b] */
  error (a, b) { this.write(50, a, b) }
  /** @param {unknown} a @param {string} [b] */
  fatal (a, b) { this.write(60, a, b) }

  /**
   * @param {number} level
   * @param {unknown} fieldsOrMessage an object of fields, an Error (logged as `err`), or the message
   * @param {string} [message]
   */
  write (level, fieldsOrMessage, message) {
    if (level < this.min) return
    let fields = ''
    let msg = message
    if (fieldsOrMessage instanceof Error) {
      fields = fieldsOf({ err: fieldsOrMessage })
      msg ??= fieldsOrMessage.message
    } else if (typeof fieldsOrMessage === 'object' && fieldsOrMessage !== null) {
      fields = fieldsOf(/** @type {Record<string, unknown>} */ (fieldsOrMessage))
    } else if (fieldsOrMessage !== undefined) {
      msg = String(fieldsOrMessage)
    }
    this.out(`{"level":${level},"time":${Date.now()}${this.bound}${fields}${msg === undefined ? '' : `,"msg":${JSON.stringify(msg)}`}}\n`)
  }
}

/**
 * `,"key":value` for each field whose value is not undefined; errors as pino writes them.
 * @param {Record<string, unknown>} fields
 */
function fieldsOf (fields) {
  let text = ''
  for (const [key, value] of Object.entries(fields)) {
    if (value === undefined) continue
    text += `,${JSON.stringify(key)}:${stringify(value instanceof Error ? serializeError(value) : value)}`
  }
  return text
}

/**
 * JSON, or for what JSON.stringify refuses (a cycle, a BigInt) a string saying what it was.
 * @param {unknown} value
 */
function stringify (value) {
  try {
    return JSON.stringify(value, (_key, v) => typeof v === 'bigint' ? String(v) : v) ?? 'null'
  } catch (err) {
    return JSON.stringify(`[unserializable: ${/** @type {Error} */ (err).message}]`)
  }
}

/**
 * pino's `err` serializer: type, message, stack, then the error's own fields (code, errno, …).
 * @param {Error} err
 * @param {Set<Error>} [seen]
 * @returns {Record<string, unknown>}
 */
export function serializeError (err, seen = new Set()) {
  seen.add(err)
  /** @type {Record<string, unknown>} */
  const out = { type: err.constructor?.name ?? 'Error', message: err.message, stack: err.stack }
  for (const [key, value] of Object.entries(err)) {
    if (key in out) continue
    out[key] = value instanceof Error ? (seen.has(value) ? '[Circular]' : serializeError(value, seen)) : value
  }
  if (err.cause instanceof Error && !seen.has(err.cause)) out.cause = serializeError(err.cause, seen)
  return out
}
