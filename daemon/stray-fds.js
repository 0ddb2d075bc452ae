// @ts-check
// Descriptors the detached daemon inherited without asking for them (ipc/inherited-fds.js): the
// CLI that starts it names those it held in SUP_INHERITED_FDS, and the daemon closes exactly
// those as it starts, so that no worker, those of other users (`uid`) included, inherits them
// (design §12). Each is checked first: still open and not close-on-exec, as an inherited one
// stays (nothing in the daemon knows of it); its IPC channel to the CLI and socket activation's
// fds are kept. sup-runtime does not do this: what a container is started with
// (`--preserve-fds`) is meant for its apps.
import { closeSync } from 'node:fs'
import { isInheritable } from '../ipc/inherited-fds.js'

/**
 * Close the descriptors named; returns those closed, for the daemon's log.
 * @param {{ listed: number[], keep: Iterable<number> }} options
 * @returns {number[]}
 */
export function closeStrayFds ({ listed, keep }) {
  const kept = new Set(keep)
  const closed = []
  for (const fd of listed) {
    if (fd < 3 || kept.has(fd) || !isInheritable(fd)) continue
    try {
      closeSync(fd)
      closed.push(fd)
    } catch {}
  }
  return closed
}
