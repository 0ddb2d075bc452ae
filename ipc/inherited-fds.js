// @ts-check
// Descriptors a process would pass on to a child it starts: those from 3 up that are not
// close-on-exec. Node passes them on and does not close them, so whatever the shell (or sshd, a
// CI agent, a deploy tool) that ran the CLI had open would reach the daemon and, from it, every
// worker (design §12). The CLI names the ones it holds in SUP_INHERITED_FDS for the daemon it
// starts, which closes exactly those (daemon/stray-fds.js). The daemon cannot find them itself:
// a library may hold a descriptor of its own without close-on-exec for a moment (OpenSSL's
// fopen() of NODE_EXTRA_CA_CERTS, on another thread, as Node starts), and closing that one
// breaks whatever later gets its number. Linux only (/proc); elsewhere the list is empty.
// Dependency-free.
import { readdirSync, readFileSync } from 'node:fs'

/** What the CLI tells the daemon it starts. */
export const INHERITED_FDS_VAR = 'SUP_INHERITED_FDS'

/** O_CLOEXEC as /proc/<pid>/fdinfo prints the flags (octal), on every Linux architecture. */
const O_CLOEXEC = 0o2000000

/**
 * Whether `fd` is open in this process and would be passed on to a child (not close-on-exec).
 * @param {number} fd
 */
export function isInheritable (fd) {
  let info
  try {
    info = readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8')
  } catch {
    return false
  }
  const flags = /^flags:\s+([0-7]+)$/m.exec(info)?.[1]
  return flags !== undefined && (parseInt(flags, 8) & O_CLOEXEC) === 0
}

/**
 * The descriptors from 3 up that a child of this process would inherit, lowest first.
 * @returns {number[]}
 */
export function inheritableFds () {
  /** @type {string[]} */
  let entries
  try {
    entries = readdirSync('/proc/self/fdinfo')
  } catch {
    return []
  }
  return entries.map(Number).filter((fd) => Number.isInteger(fd) && fd >= 3 && isInheritable(fd)).sort((a, b) => a - b)
}

/**
 * SUP_INHERITED_FDS's numbers; anything that is not a list of numbers from 3 up gives none.
 * @param {string | undefined} value
 * @returns {number[]}
 */
export function parseFdList (value) {
  if (!value || !/^\d+(,\d+)*$/.test(value)) return []
  return value.split(',').map(Number).filter((fd) => fd >= 3 && fd < 1 << 20)
}
