'use strict'
// sup's gate for cluster workers (issue 24), loaded with --require before anything else of
// the command line: where the daemon puts each worker in a cgroup of its own, a cluster
// worker waits here, before any code of the app (its --require preloads included) can start
// a process, until the daemon has moved it and sends a line on its stdin (a pipe the daemon
// holds: cluster's silent mode). Fork-mode workers wait in a shell instead (worker/gate.js).
// Without SUP_CGROUP_GATE it does nothing. Dependency-free, and it leaves nothing behind: the
// variable is removed, and stdin is at its end afterwards (it carried nothing for the app before).
if (process.env.SUP_CGROUP_GATE === '1') {
  delete process.env.SUP_CGROUP_GATE
  const fs = require('node:fs')
  const byte = Buffer.alloc(1)
  // A stdin that is not blocking answers EAGAIN: wait a little and ask again, 30 s at most.
  const nap = new Int32Array(new SharedArrayBuffer(4))
  const deadline = Date.now() + 30_000
  for (;;) {
    let n
    try {
      n = fs.readSync(0, byte, 0, 1, null)
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EAGAIN' && Date.now() < deadline) {
        Atomics.wait(nap, 0, 0, 5)
        continue
      }
      break
    }
    if (n === 0 || byte[0] === 10) break
  }
}
