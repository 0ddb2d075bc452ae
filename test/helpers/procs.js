// @ts-check
// Find the processes that belong to one test's SUP_HOME, whoever their parent is now: every
// process a daemon starts inherits SUP_HOME in its environment, orphans included. Tests run
// side by side on one machine with the same fixture apps, so the command line alone cannot
// tell whose a process is. Linux only (/proc).
import { readdirSync, readFileSync } from 'node:fs'
import { isProcessRunning } from '../../ipc/process-status.js'
import { waitFor } from './wait.js'

/**
 * @param {string} home the SUP_HOME
 * @returns {Array<{ pid: number, argv: string[] }>} running processes (zombies left out)
 */
export function processesOfHome (home) {
  const found = []
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue
    const pid = Number(name)
    try {
      const env = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0')
      if (!env.includes(`SUP_HOME=${home}`) || !isProcessRunning(pid)) continue
      found.push({ pid, argv: readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean) })
    } catch {
      // gone while we looked, or not ours to read
    }
  }
  return found
}

/**
 * The processes of a home whose command line mentions `fragment` (a fixture's file name).
 * @param {string} home
 * @param {string} fragment
 */
export function pidsRunning (home, fragment) {
  return processesOfHome(home).filter((p) => p.argv.some((a) => a.includes(fragment))).map((p) => p.pid)
}

/**
 * Safety net for tests that kill daemons: SIGKILL whatever of this home is still running.
 * @param {string} home
 */
export function killEverythingOf (home) {
  for (const { pid } of processesOfHome(home)) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
}

/**
 * Wait until exactly `count` processes of a home mention `fragment`. `python3` may be a shell
 * shim (pyenv) whose subshells carry the script's name for a moment before it execs Python,
 * so one count taken right after `online` can see two; a copy started twice never goes away
 * and still fails the wait.
 * @param {string} home
 * @param {string} fragment
 * @param {number} count
 * @param {number} [timeout]
 * @returns {Promise<number[]>} their pids
 */
export async function waitForProcessCount (home, fragment, count, timeout = 10_000) {
  let seen = /** @type {number[]} */ ([])
  return await waitFor(() => {
    seen = pidsRunning(home, fragment)
    return seen.length === count ? seen : null
  }, { what: `${count} process(es) running ${fragment}`, timeout, show: () => `${seen.length}: ${seen.join(' ')}` })
}
