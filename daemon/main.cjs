'use strict'
// @ts-check
// The daemon's entry as the CLI spawns it (client/spawn-daemon.js). CommonJS, like bin/sup.cjs
// and for the same reason: Node starts without its ESM loader, and require() loads the
// daemon's ES modules synchronously where Node takes them that way (>= 20.19, 22.12); import()
// elsewhere. `node daemon/main.js` runs the same daemon.
try {
  require('./main.js')
} catch (err) {
  const code = /** @type {NodeJS.ErrnoException} */ (err).code
  if (code !== 'ERR_REQUIRE_ESM' && code !== 'ERR_REQUIRE_ASYNC_MODULE') throw err
  import('./main.js')
}
