// @ts-check
// Descriptors the detached daemon inherited without asking for them. A process passes on every
// descriptor it holds without close-on-exec, and Node does not close them: a file root's shell
// (or sshd, a CI agent, a deploy tool) had open when it ran `sup start` reached the daemon, and
// from it every worker, those of other users (`uid`) included, which could then read or write
// it (design §12). So the daemon closes, as it starts, every descriptor from 3 up that is not
// close-on-exec: Node's own are all close-on-exec; the daemon's IPC channel to the CLI and the
// sockets of socket activation are kept. Linux only (/proc); elsewhere nothing is done.
// sup-runtime does not do this: what a container is started with (`--preserve-fds`) is
// meant for its apps.
import { closeSync, readdirSync, readFileSync } from 'node:fs'

/** O_CLOEXEC as /proc/<pid>/fdinfo prints the flags (octal), on every Linux architecture. */
const O_CLOEXEC = 0o2000000

/**
 * The descriptors from 3 up that a child would inherit (not close-on-exec), from /proc.
 * @param {string} [proc] the process's /proc directory
 * @returns {number[]}
 */
export function inheritableFds (proc = '/proc/self') {
  /** @type {string[]} */
  let entries
  try {
    entries = readdirSync(`${proc}/fdinfo`)
  } catch {
    return []
  }
  const fds = []
  for (const entry of entries) {
    const fd = Number(entry)
    if (!Number.isInteger(fd) || fd < 3) continue
    let info
    try {
      info = readFileSync(`${proc}/fdinfo/${fd}`, 'utf8')
    } catch {
      continue // closed meanwhile (the readdir's own descriptor)
    }
    const flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1]
    if (flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0) fds.push(fd)
  }
  return fds.sort((a, b) => a - b)
}

/**
 * Close what was inherited by mistake; returns the descriptors closed, for the daemon's log.
 * @param {{ keep: Iterable<number> }} options keep: the IPC channel, socket activation's fds
 * @returns {number[]}
 */
export function closeStrayFds ({ keep }) {
  const kept = new Set(keep)
  const closed = []
  for (const fd of inheritableFds()) {
    if (kept.has(fd)) continue
    try {
      closeSync(fd)
      closed.push(fd)
    } catch {}
  }
  return closed
}
