'use strict'
// sup's agent, loaded with --require into every node worker. It must never change what the
// app sees: no patched globals, no output, no listener that keeps the process alive.
// Cluster workers need nothing from it yet (the primary sees 'listening' itself); a
// fork-mode worker tells the daemon when its first server listens.
if (typeof process.send === 'function' && !process.env.NODE_UNIQUE_ID) {
  const dc = require('node:diagnostics_channel')
  const CHANNEL = 'tracing:net.server.listen:asyncEnd'
  const onListen = () => {
    dc.unsubscribe(CHANNEL, onListen)
    // A callback keeps a closed channel from turning into an 'error' event in the app.
    if (process.connected && process.send) process.send({ sup: 'listening' }, undefined, {}, () => {})
  }
  dc.subscribe(CHANNEL, onListen)
}
