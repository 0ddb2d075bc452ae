// @ts-check
// One cgroup directory: put a process in, end everything in it, wait for it to empty, remove it.
// v2 ends a cgroup with `cgroup.kill` (Linux 5.14+; the kernel kills every process in it and
// its descendants, and no fork can race it); v1, or a v2 without cgroup.kill, with
// freeze-kill-thaw (a frozen process cannot fork while it is being killed).
import { existsSync, readdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

/** How long a killed cgroup gets to empty (ms). */
export const EMPTY_WAIT_MS = 5000
const POLL_MS = 20

/**
 * @param {string} dir
 * @param {string} file
 * @returns {string | null} its text, or null when it cannot be read
 */
export function readControl (dir, file) {
  try {
    return readFileSync(join(dir, file), 'utf8')
  } catch {
    return null
  }
}

/**
 * Move a process into a cgroup, synchronously: the daemon itself, once, at its start, before
 * it serves anything (v2-controllers.js). Workers are placed off the loop (Cgroups.place).
 * @param {string} dir
 * @param {number} pid
 */
export function movePid (dir, pid) {
  writeFileSync(join(dir, 'cgroup.procs'), String(pid))
}

/**
 * The pids in a cgroup and every cgroup below it.
 * @param {string} dir
 * @returns {number[]}
 */
export function pidsBelow (dir) {
  const pids = (readControl(dir, 'cgroup.procs') ?? '').split('\n').filter(Boolean).map(Number)
  for (const child of subdirs(dir)) pids.push(...pidsBelow(join(dir, child)))
  return pids
}

/**
 * The cgroups directly below one.
 * @param {string} dir
 * @returns {string[]}
 */
export function subdirs (dir) {
  try {
    return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name)
  } catch {
    return []
  }
}

/**
 * SIGKILL everything in a cgroup and below it, and wait until it is empty.
 * @param {string} dir
 * @param {1 | 2} version
 * @returns {Promise<number>} how many processes were in it
 */
export async function killCgroup (dir, version) {
  const before = pidsBelow(dir)
  if (before.length === 0) return 0
  if (version === 2 && existsSync(join(dir, 'cgroup.kill'))) {
    writeFileSync(join(dir, 'cgroup.kill'), '1')
  } else {
    await freezeKillThaw(dir, version)
  }
  await waitEmpty(dir)
  return before.length
}

/**
 * @param {string} dir
 * @param {1 | 2} version
 */
async function freezeKillThaw (dir, version) {
  const [file, frozen, thawed] = version === 2 ? ['cgroup.freeze', '1', '0'] : ['freezer.state', 'FROZEN', 'THAWED']
  const canFreeze = existsSync(join(dir, file))
  if (canFreeze) {
    writeFileSync(join(dir, file), frozen)
    // v1 says FREEZING until every task stopped; v2's cgroup.events says frozen 1.
    const deadline = Date.now() + EMPTY_WAIT_MS
    while (Date.now() < deadline && !isFrozen(dir, version)) await sleep(POLL_MS)
  }
  for (const pid of pidsBelow(dir)) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {}
  }
  // A killed process still frozen never dies: thaw, and it handles the SIGKILL first.
  if (canFreeze) writeFileSync(join(dir, file), thawed)
}

/**
 * @param {string} dir
 * @param {1 | 2} version
 */
function isFrozen (dir, version) {
  if (version === 1) return readControl(dir, 'freezer.state')?.trim() === 'FROZEN'
  return /^frozen 1$/m.test(readControl(dir, 'cgroup.events') ?? '')
}

/**
 * @param {string} dir
 * @param {number} [ms]
 * @returns {Promise<boolean>} whether it emptied in time
 */
export async function waitEmpty (dir, ms = EMPTY_WAIT_MS) {
  const deadline = Date.now() + ms
  while (pidsBelow(dir).length > 0) {
    if (Date.now() >= deadline) return false
    await sleep(POLL_MS)
  }
  return true
}

/**
 * Remove a cgroup and those below it, deepest first; one with a process left stays.
 * @param {string} dir
 * @param {{ only?: boolean }} [options] only: this one, if it is empty (nothing below is touched)
 * @returns {boolean} whether it is gone
 */
export function removeCgroup (dir, { only = false } = {}) {
  if (!only) for (const child of subdirs(dir)) removeCgroup(join(dir, child))
  try {
    rmdirSync(dir)
    return true
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT'
  }
}
