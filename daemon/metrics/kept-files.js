// @ts-check
// Small /proc files read once per sample. Opening a file costs more than reading it, so each
// stays open between samples and is re-read in place (a pread at offset 0 regenerates a
// /proc file). A read that fails means the process or thread has ended; if its id has been
// reused since, a fresh open reaches the new one, so a failed read reopens once.
import { closeSync, openSync, readSync } from 'node:fs'

export class KeptFiles {
  /** @param {number} [bufferSize] */
  constructor (bufferSize = 4096) {
    /** @type {Map<string, number>} */
    this.fds = new Map()
    /** @type {Set<string>} */
    this.used = new Set()
    this.buffer = Buffer.alloc(bufferSize)
  }

  /**
   * The whole file as latin1 text, or null when it cannot be read.
   * @param {string} path
   * @returns {string | null}
   */
  read (path) {
    for (let attempt = 0; attempt < 2; attempt++) {
      let fd = this.fds.get(path)
      try {
        if (fd === undefined) {
          fd = openSync(path, 'r')
          this.fds.set(path, fd)
        }
        let text = ''
        for (let offset = 0; ; offset += this.buffer.length) {
          const n = readSync(fd, this.buffer, 0, this.buffer.length, offset)
          text += this.buffer.toString('latin1', 0, n)
          if (n < this.buffer.length) break
        }
        this.used.add(path)
        return text
      } catch {
        if (fd !== undefined) closeQuietly(fd)
        this.fds.delete(path)
      }
    }
    return null
  }

  /** Close the files not read since the last call: their processes are gone or no longer asked for. */
  sweep () {
    for (const [path, fd] of this.fds) {
      if (this.used.has(path)) continue
      closeQuietly(fd)
      this.fds.delete(path)
    }
    this.used.clear()
  }

  close () {
    for (const fd of this.fds.values()) closeQuietly(fd)
    this.fds.clear()
    this.used.clear()
  }
}

/** @param {number} fd */
function closeQuietly (fd) {
  try {
    closeSync(fd)
  } catch {}
}
