// @ts-check
// cgroup v2 gives a cgroup's children a controller only when every ancestor enabled it in its
// cgroup.subtree_control, and a cgroup with processes of its own may not enable any (the "no
// internal processes" rule; the root is exempt). So for memory, cpu and pids limits in v2 the
// daemon enables them in its own cgroup, its subtree and each app's cgroup; a daemon alone in
// its cgroup (a systemd unit with Delegate=yes) first moves itself into a leaf of its own, as
// systemd's delegation documentation asks. Where that cannot be done (a login shell's scope holds
// other processes), the limits fall back to v1 hierarchies where mounted, or are refused.
// Not run on this project's CI machine, whose v2 hierarchy offers no such controller
// (docs/reliability.md#containment says so).
import { mkdirSync, writeFileSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { movePid } from './cgroup-dir.js'

const SUBTREE_CONTROL = 'cgroup.subtree_control'
/** "+memory +cpu": what enables controllers for a cgroup's children. @param {string[]} controllers */
const enableLine = (controllers) => controllers.map((c) => `+${c}`).join(' ')

/**
 * Enable controllers for the cgroups below one.
 * @param {string} dir
 * @param {string[]} controllers
 * @returns {boolean} whether the kernel took them
 */
export function enableBelow (dir, controllers) {
  if (controllers.length === 0) return true
  try {
    writeFileSync(join(dir, SUBTREE_CONTROL), enableLine(controllers))
    return true
  } catch {
    return false
  }
}

/**
 * enableBelow off the event loop: an app's cgroup, at each worker's start (Cgroups.place).
 * @param {string} dir
 * @param {string[]} controllers
 * @returns {Promise<boolean>} whether the kernel took them
 */
export async function enableBelowAsync (dir, controllers) {
  if (controllers.length === 0) return true
  return writeFile(join(dir, SUBTREE_CONTROL), enableLine(controllers)).then(() => true, () => false)
}

/**
 * Enable `wanted` from the daemon's own cgroup down to its subtree's root.
 * @param {{ own: string, mount: string, root: string, daemonLeaf: string, wanted: string[] }} where
 *   daemonLeaf: where the daemon moves itself when its own cgroup must hold no process
 * @returns {string[]} the controllers its workers' cgroups can have (all of wanted, or none)
 */
export function enableV2Controllers ({ own, mount, root, daemonLeaf, wanted }) {
  if (wanted.length === 0) return []
  if (!enableBelow(own, wanted)) {
    if (own === mount) return []
    try {
      mkdirSync(daemonLeaf, { recursive: true })
      movePid(daemonLeaf, process.pid)
    } catch {
      return []
    }
    if (!enableBelow(own, wanted)) return []
  }
  return enableBelow(root, wanted) ? wanted : []
}
