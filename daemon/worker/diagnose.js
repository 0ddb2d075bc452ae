// @ts-check
// Why a worker that never came online exited, read from its last stderr lines: a port already
// taken (and by whom), a port that needs root, a module that is not installed, a syntax error.
// The answer goes on the row (last_exit.reason), in the exit's event and in `sup start`'s
// answer, so the user does not have to dig a stack trace out of the logs (issue 20). Any
// language: the patterns are Node's, Python's and the C library's words.
import { readdir, readFile, readlink } from 'node:fs/promises'

/** @typedef {{ pid: number, command: string }} PortHolder */

const PATTERNS = /** @type {const} */ ([
  // node: "Error: listen EADDRINUSE: address already in use 127.0.0.1:3300" / ":::3300"
  { re: /EADDRINUSE\b[^\n]*?(?::(\d{1,5}))?\s*$/, kind: 'in-use' },
  // python: "OSError: [Errno 98] Address already in use"; others: "address already in use"
  { re: /address already in use/i, kind: 'in-use' },
  { re: /listen EACCES[^\n]*?:(\d{1,5})\s*$/, kind: 'privileged' },
  { re: /Cannot find (?:module|package) '([^']+)'/, kind: 'module' },
  { re: /ModuleNotFoundError: No module named '([^']+)'/, kind: 'module' },
  { re: /^(SyntaxError: .*)$/, kind: 'syntax' }
])

/**
 * The cause of a failed start, in one line, or null when the lines do not say.
 * @param {string[]} lines the worker's last stderr lines, oldest first
 * @param {{ findHolder?: (port: number) => Promise<PortHolder | null> }} [options]
 * @returns {Promise<string | null>}
 */
export async function diagnoseStart (lines, { findHolder = findPortHolder } = {}) {
  for (const line of lines) {
    for (const { re, kind } of PATTERNS) {
      const match = re.exec(line)
      if (!match) continue
      if (kind === 'in-use') {
        const port = match[1] ? Number(match[1]) : null
        if (port === null) return 'its address is already in use by another process'
        const holder = await findHolder(port).catch(() => null)
        return `port ${port} is already in use${holder ? ` by pid ${holder.pid} (${holder.command})` : ''}`
      }
      if (kind === 'privileged') return `port ${match[1]} is below 1024: it needs root or CAP_NET_BIND_SERVICE (or use a port above 1023)`
      if (kind === 'module') return `module '${match[1]}' is not installed (npm install / pip install in its folder)`
      return match[1].slice(0, 300)
    }
  }
  return null
}

/**
 * The process listening on a TCP port of this machine, from /proc (Linux; null elsewhere, or
 * when the socket belongs to a process we may not look into).
 * @param {number} port
 * @returns {Promise<PortHolder | null>}
 */
export async function findPortHolder (port) {
  if (process.platform !== 'linux') return null
  const inodes = new Set()
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    const text = await readFile(table, 'utf8').catch(() => '')
    for (const row of text.split('\n').slice(1)) {
      const cols = row.trim().split(/\s+/)
      // local_address is ADDR:PORT in hex; st 0A is LISTEN; the inode is the tenth column.
      if (cols.length > 9 && cols[3] === '0A' && parseInt(cols[1].split(':')[1], 16) === port) inodes.add(cols[9])
    }
  }
  if (inodes.size === 0) return null
  for (const name of await readdir('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const fds = await readdir(`/proc/${name}/fd`).catch(() => [])
    for (const fd of fds) {
      const link = await readlink(`/proc/${name}/fd/${fd}`).catch(() => '')
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1]
      if (inode && inodes.has(inode)) {
        const cmdline = await readFile(`/proc/${name}/cmdline`, 'utf8').catch(() => '')
        return { pid: Number(name), command: cmdline.split('\0').filter(Boolean).slice(0, 3).join(' ').slice(0, 120) || '?' }
      }
    }
  }
  return null
}
