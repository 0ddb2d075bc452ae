// @ts-check
// Turn one reading of a worker's process tree into its figures: CPU % over the last
// interval, CPU seconds since the worker's process started (a counter that never goes
// down, even when a child exits and takes its CPU time with it), and memory. Pure: the
// caller keeps the returned track and passes it back on the next sample.

/**
 * @typedef {object} TreeTrack what one worker process's tree looked like at the last sample
 * @property {number} rootPid
 * @property {number} time ms
 * @property {Map<number, number>} ctimes pid → CPU ms it had used
 * @property {number} cpuMs CPU ms charged to the tree since the root started
 *
 * @typedef {{ cpu: number, cpuSeconds: number, memory: number, processes: number }} TreeFigures
 */

/**
 * @param {TreeTrack | null} track the previous result for this worker, if any
 * @param {number} rootPid
 * @param {number[]} pids the root and its descendants
 * @param {Map<number, import('./read-usage.js').PidUsage>} usage
 * @param {number} now ms
 * @returns {{ track: TreeTrack, figures: TreeFigures } | null} null when the root is gone
 */
export function accountTree (track, rootPid, pids, usage, now) {
  if (!usage.has(rootPid)) return null
  const fresh = track === null || track.rootPid !== rootPid
  const before = fresh ? new Map() : track.ctimes
  let spent = 0
  let memory = 0
  const ctimes = new Map()
  for (const pid of pids) {
    const u = usage.get(pid)
    if (!u) continue
    const previous = before.get(pid)
    // A pid seen for the first time (or reused: its CPU time went back) is charged in full:
    // it was born inside this tree after the last sample.
    spent += previous === undefined || u.ctime < previous ? u.ctime : u.ctime - previous
    memory += u.memory
    ctimes.set(pid, u.ctime)
  }
  const elapsed = fresh ? 0 : now - track.time
  const cpuMs = (fresh ? 0 : track.cpuMs) + spent
  return {
    track: { rootPid, time: now, ctimes, cpuMs },
    figures: {
      // The first reading of a process has no interval to divide by.
      cpu: elapsed > 0 ? round((spent / elapsed) * 100, 1) : 0,
      cpuSeconds: cpuMs / 1000,
      memory,
      processes: ctimes.size
    }
  }
}

/**
 * @param {number} value
 * @param {number} digits
 */
function round (value, digits) {
  const f = 10 ** digits
  return Math.round(value * f) / f
}
