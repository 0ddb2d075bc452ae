// @ts-check
// For the cgroup tests: whether this machine lets sup create cgroups, the processes found by
// their command line, and the removal of a test home's cgroups when the test ends.
import { readdirSync, readFileSync } from 'node:fs'
import { Cgroups } from '../../daemon/cgroups/cgroups.js'

const quiet = /** @type {any} */ ({ info () {}, warn () {}, error () {}, debug () {} })

/**
 * Why the cgroup tests cannot run here, or false when they can.
 * @returns {string | false}
 */
export function cgroupSkipReason () {
  if (process.platform !== 'linux') return 'needs Linux cgroups'
  if (process.getuid?.() !== 0) return 'needs root (sup creates cgroups as root, as CI runs)'
  const probe = new Cgroups({ home: `/nonexistent/sup-cgroup-probe-${process.pid}`, logger: quiet })
  probe.close()
  return probe.enabled ? false : `needs a cgroup fs sup may write: ${probe.reason}`
}

/**
 * End and remove every cgroup a home's daemons made (none where sup may not make any).
 * @param {string} home
 */
export async function removeCgroupsOf (home) {
  const cgroups = new Cgroups({ home, logger: quiet })
  await cgroups.endPrevious()
  cgroups.close()
}

/**
 * End and remove every cgroup a test home's daemon made, once the test is over.
 * @param {import('node:test').TestContext} t
 * @param {string} home
 */
export function removeCgroupsAfter (t, home) {
  t.after(() => removeCgroupsOf(home))
}

/**
 * The pids of `sleep <arg>` (a unique `sleep 999.<n>`; the app that started it has the same
 * argument, and is not one of them).
 * @param {string} arg
 * @returns {number[]}
 */
export function sleepsWithArg (arg) {
  const found = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    try {
      const [program, first] = readFileSync(`/proc/${name}/cmdline`, 'latin1').split('\0')
      if (program.endsWith('sleep') && first === arg) found.push(Number(name))
    } catch {}
  }
  return found
}

/** A sleep duration no other process has: the escapee's name. */
export const uniqueSleep = () => `999.${process.pid}${Math.floor(Math.random() * 1e6)}`
