// @ts-check
// Which cgroup hierarchies this machine has and where the daemon sits in each, read once at
// the daemon's start from /proc/self/mountinfo and /proc/self/cgroup. Pure v2 (one cgroup2
// mount), hybrid (v1 controllers plus a cgroup2 `unified` mount, as systemd's hybrid mode and
// this project's CI machine have), v1 only, or none (macOS, a container without /sys/fs/cgroup).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/**
 * @typedef {object} Hierarchy one mounted hierarchy and the daemon's own cgroup in it
 * @property {1 | 2} version
 * @property {string[]} controllers v1: the controllers mounted there; v2: those its root offers
 * @property {string} mount where it is mounted
 * @property {string} own the directory of the daemon's own cgroup in it
 *
 * @typedef {object} Layout
 * @property {'v2' | 'hybrid' | 'v1' | 'none'} kind
 * @property {Hierarchy | null} v2
 * @property {Hierarchy[]} v1
 */

/** The v1 controllers sup may use: the kill (freezer), the limits and the accounting. */
export const V1_CONTROLLERS = ['freezer', 'memory', 'cpu', 'cpuacct', 'pids']

/**
 * The cgroup mounts in a mountinfo text: mount point, the root of the mount, fs type, options.
 * @param {string} text /proc/self/mountinfo
 * @returns {Array<{ mount: string, root: string, version: 1 | 2, controllers: string[] }>}
 */
export function parseMountinfo (text) {
  const mounts = []
  for (const line of text.split('\n')) {
    const [left, right] = line.split(' - ')
    if (!right) continue
    const fields = left.split(' ')
    const [fstype, , superOptions = ''] = right.split(' ')
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue
    const controllers = fstype === 'cgroup' ? superOptions.split(',').filter((o) => V1_CONTROLLERS.includes(o)) : []
    mounts.push({ mount: unescapeMount(fields[4]), root: unescapeMount(fields[3]), version: /** @type {1 | 2} */ (fstype === 'cgroup2' ? 2 : 1), controllers })
  }
  return mounts
}

/** mountinfo escapes space, tab, newline and backslash as \ooo. @param {string} s */
const unescapeMount = (s) => s.replace(/\\([0-7]{3})/g, (_, oct) => String.fromCharCode(parseInt(oct, 8)))

/**
 * The daemon's cgroup path in each hierarchy, from /proc/self/cgroup (`id:controllers:path`).
 * @param {string} text
 * @returns {{ v2: string | null, v1: Map<string, string> }} v1: controller → path
 */
export function parseSelfCgroup (text) {
  let v2 = null
  const v1 = new Map()
  for (const line of text.split('\n')) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line)
    if (!match) continue
    if (match[1] === '0' && match[2] === '') v2 = match[3]
    else for (const controller of match[2].split(',')) v1.set(controller, match[3])
  }
  return { v2, v1 }
}

/**
 * The directory of a cgroup path in a mount whose root may be a sub-cgroup (a container sees
 * its own cgroup as `/`).
 * @param {{ mount: string, root: string }} mount
 * @param {string} path
 */
function dirOf (mount, path) {
  const rel = mount.root !== '/' && path.startsWith(mount.root) ? path.slice(mount.root.length) : path
  const dir = join(mount.mount, rel)
  return dir.length > 1 && dir.endsWith('/') ? dir.slice(0, -1) : dir
}

/**
 * @param {string} mountinfo
 * @param {string} selfCgroup
 * @param {(mount: string) => string[]} v2Controllers what a cgroup2 root offers (its cgroup.controllers)
 * @returns {Layout}
 */
export function detectLayout (mountinfo, selfCgroup, v2Controllers = () => []) {
  const mounts = parseMountinfo(mountinfo)
  const self = parseSelfCgroup(selfCgroup)
  const unified = mounts.find((m) => m.version === 2)
  /** @type {Hierarchy | null} */
  const v2 = unified && self.v2 !== null ? { version: 2, controllers: v2Controllers(unified.mount), mount: unified.mount, own: dirOf(unified, self.v2) } : null
  /** @type {Hierarchy[]} */
  const v1 = []
  for (const m of mounts) {
    if (m.version !== 1 || m.controllers.length === 0) continue
    const path = self.v1.get(m.controllers[0])
    if (path !== undefined) v1.push({ version: 1, controllers: m.controllers, mount: m.mount, own: dirOf(m, path) })
  }
  const kind = v2 && v1.length > 0 ? 'hybrid' : v2 ? 'v2' : v1.length > 0 ? 'v1' : 'none'
  return { kind, v2, v1 }
}

/**
 * This machine's layout; none where there is no /proc (macOS) or nothing is mounted.
 * @returns {Layout}
 */
export function readLayout () {
  if (process.platform !== 'linux') return { kind: 'none', v2: null, v1: [] }
  try {
    const controllers = (/** @type {string} */ mount) => {
      try {
        return readFileSync(join(mount, 'cgroup.controllers'), 'utf8').trim().split(/\s+/).filter(Boolean)
      } catch {
        return []
      }
    }
    return detectLayout(readFileSync('/proc/self/mountinfo', 'utf8'), readFileSync('/proc/self/cgroup', 'utf8'), controllers)
  } catch {
    return { kind: 'none', v2: null, v1: [] }
  }
}
