'use strict'
// sup's gate for node workers (issue 24), loaded with --require before anything else of the
// command line: where the daemon puts each worker in a cgroup of its own, a node worker waits
// here, before any code of the app (its --require preloads included) can start a process,
// until the daemon has moved it and sends a line on its stdin (a pipe the daemon holds). Node
// boots while the daemon moves it, so the move costs a worker's start nothing. Other programs
// in fork mode wait in a shell instead (worker/gate.js).
// SUP_CGROUP_GATE=1 (cluster): a stdin closed before the line (the daemon gone) lets the app
// run, as it would have without a gate, and the primary's end ends it. SUP_CGROUP_GATE=fork:
// it exits with 125 instead, as the shell's gate does: nothing runs uncontained.
// Without SUP_CGROUP_GATE it does nothing. Dependency-free, and it leaves nothing behind: the
// variable is removed, and stdin is at its end afterwards (it carried nothing for the app before).
const gate = process.env.SUP_CGROUP_GATE
if (gate === '1' || gate === 'fork') {
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
      if (gate === 'fork') process.exit(125)
      break
    }
    if (byte[0] === 10 && n === 1) break
    if (n === 0) {
      if (gate === 'fork') process.exit(125)
      break
    }
  }
}
