#!/usr/bin/env node
// @ts-check
'use strict'
// The `sup` command. CommonJS on purpose, the one such file of ours: Node starts a CommonJS
// entry without its ESM loader, and where require() takes ES modules (Node >= 20.19, 22.12)
// the CLI's modules load synchronously, without that loader's per-file promises. Together
// they were a quarter of what a `sup ls` adds to Node's own start-up (docs/benchmarks.md).
// Where require() cannot take them, import() does, as before.

/** @param {string} specifier */
function load (specifier) {
  try {
    return require(specifier)
  } catch (err) {
    const code = /** @type {NodeJS.ErrnoException} */ (err).code
    if (code === 'ERR_REQUIRE_ESM' || code === 'ERR_REQUIRE_ASYNC_MODULE') return import(specifier)
    throw err
  }
}

async function run () {
  const argv = process.argv.slice(2)
  // A cold `sup ls` starts the daemon before the CLI is even loaded (see spawn-daemon.js).
  const { prestartDaemon } = await load('../client/spawn-daemon.js')
  const earlyStart = prestartDaemon(argv, process.env)
  const { main } = await load('../client/cli.js')

  // `sup logs | head` closes our stdout early: that is the reader's choice, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err) => {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EPIPE') process.exit(process.exitCode ?? 0)
      throw err
    })
  }

  process.exitCode = await main(argv, {
    out: (/** @type {string} */ text) => process.stdout.write(text + '\n'),
    err: (/** @type {string} */ text) => process.stderr.write(text + '\n'),
    env: process.env,
    cwd: process.cwd(),
    earlyStart
  })
}

run()
