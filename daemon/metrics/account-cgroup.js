// @ts-check
// A worker's CPU from its cgroup's counter: % over the last interval and seconds since its
// process started, including what children that have exited used (the kernel keeps it; a
// walk of /proc loses a child's time when its parent does not wait for it). Pure: the caller
// keeps the track for the next sample.

/**
 * @typedef {{ rootPid: number, time: number, cpuSeconds: number }} CgroupTrack
 */

/**
 * @param {CgroupTrack | null} track the previous result for this worker, if any
 * @param {number} rootPid the worker's process (a new one starts a new count)
 * @param {import('../cgroups/usage.js').CgroupFigures} read
 * @param {number} now ms
 * @returns {{ track: CgroupTrack, figures: { cpu: number, cpuSeconds: number } }}
 */
export function accountCgroup (track, rootPid, read, now) {
  const fresh = track === null || track.rootPid !== rootPid
  const elapsed = fresh ? 0 : now - track.time
  const spentMs = fresh ? 0 : Math.max(0, read.cpu_seconds - track.cpuSeconds) * 1000
  return {
    track: { rootPid, time: now, cpuSeconds: read.cpu_seconds },
    figures: {
      cpu: elapsed > 0 ? Math.round((spentMs / elapsed) * 1000) / 10 : 0,
      cpuSeconds: read.cpu_seconds
    }
  }
}
