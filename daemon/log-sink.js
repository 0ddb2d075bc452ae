// @ts-check
// One app's logs: worker stdout/stderr split into lines, written to the app's files
// (design §7), kept in a ring for `sup logs`, and emitted as 'line' for subscribers.
import { EventEmitter } from 'node:events'
import { createWriteStream } from 'node:fs'
import { truncate } from 'node:fs/promises'
import { basename, extname, join } from 'node:path'
import { LogRing } from './log-ring.js'

/** Lines kept in memory per app. */
const RING_SIZE = 2000
/** A line longer than this without a newline is cut, so one chatty worker cannot grow the daemon. */
const MAX_LINE = 64 * 1024
const DISABLED = '/dev/null'

/**
 * Where an instance's stream goes. Cluster apps get a file per instance unless merge_logs.
 * @param {import('../ipc/app-config.js').AppConfig} config
 * @param {string} logsDir
 * @param {'out' | 'err'} stream
 * @param {number} instance
 */
export function logPathFor (config, logsDir, stream, instance) {
  const custom = stream === 'out' ? config.out_file : config.error_file
  if (custom === DISABLED || custom === 'NULL') return DISABLED
  const base = custom ?? join(logsDir, `${config.name}-${stream}.log`)
  const perInstance = !config.merge_logs && (config.exec_mode === 'cluster' || config.instances > 1)
  if (!perInstance) return base
  const ext = extname(base)
  return join(base.slice(0, base.length - basename(base).length), `${basename(base, ext)}-${instance}${ext}`)
}

export class LogSink extends EventEmitter {
  /**
   * @param {{ config: import('../ipc/app-config.js').AppConfig, logsDir: string, logger: import('pino').Logger }} options
   */
  constructor ({ config, logsDir, logger }) {
    super()
    this.config = config
    this.logsDir = logsDir
    this.logger = logger
    this.ring = new LogRing(RING_SIZE)
    /** @type {Map<string, import('node:fs').WriteStream>} */
    this.files = new Map()
  }

  /**
   * Follow one worker stream until it ends.
   * @param {import('node:stream').Readable | null} readable
   * @param {{ id: number, instance: number, stream: 'out' | 'err' }} source
   */
  attach (readable, source) {
    if (!readable) return
    const path = logPathFor(this.config, this.logsDir, source.stream, source.instance)
    let partial = ''
    readable.setEncoding('utf8')
    readable.on('data', (/** @type {string} */ chunk) => {
      const parts = (partial + chunk).split('\n')
      partial = /** @type {string} */ (parts.pop())
      if (partial.length > MAX_LINE) {
        parts.push(partial)
        partial = ''
      }
      if (parts.length > 0) this.writeLines(path, source, parts)
    })
    readable.on('end', () => {
      if (partial) this.writeLines(path, source, [partial])
    })
    readable.on('error', () => {})
  }

  /**
   * @param {string} path
   * @param {{ id: number, instance: number, stream: 'out' | 'err' }} source
   * @param {string[]} lines
   */
  writeLines (path, source, lines) {
    const time = Date.now()
    let text = ''
    for (const line of lines) {
      const entry = { time, app: this.config.name, id: source.id, instance: source.instance, stream: source.stream, line }
      this.ring.push(entry)
      this.emit('line', entry)
      text += this.formatLine(entry) + '\n'
    }
    if (path !== DISABLED) this.fileFor(path).write(text)
  }

  /** @param {import('./log-ring.js').LogEntry} entry */
  formatLine (entry) {
    const iso = new Date(entry.time).toISOString()
    if (this.config.log_type === 'json') {
      return JSON.stringify({ app: entry.app, instance: entry.instance, stream: entry.stream, time: iso, message: entry.line })
    }
    return this.config.time ? `${iso}: ${entry.line}` : entry.line
  }

  /** @param {string} path */
  fileFor (path) {
    let file = this.files.get(path)
    if (!file) {
      file = createWriteStream(path, { flags: 'a', mode: 0o600 })
      // An unwritable path is reported, never allowed to crash the daemon.
      file.on('error', (err) => this.logger.error({ err, app: this.config.name, path }, 'cannot write log file'))
      this.files.set(path, file)
    }
    return file
  }

  /** The files of every instance that has (or would have) run. */
  paths () {
    const paths = new Set()
    for (let i = 0; i < this.config.instances; i++) {
      paths.add(logPathFor(this.config, this.logsDir, 'out', i))
      paths.add(logPathFor(this.config, this.logsDir, 'err', i))
    }
    for (const path of this.files.keys()) paths.add(path)
    paths.delete(DISABLED)
    return [...paths]
  }

  /** Empty the files and the ring. Writes are appends, so truncating under them is safe. */
  async flush () {
    this.ring.clear()
    await Promise.all(this.paths().map((path) => truncate(path).catch(() => {})))
  }

  close () {
    for (const file of this.files.values()) file.end()
    this.files.clear()
  }
}
