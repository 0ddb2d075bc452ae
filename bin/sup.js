#!/usr/bin/env node
// @ts-check
import { prestartDaemon } from '../client/spawn-daemon.js'

// A cold `sup ls` starts the daemon before the CLI is even loaded (see spawn-daemon.js).
prestartDaemon(process.argv.slice(2), process.env)
const { main } = await import('../client/cli.js')

// `sup logs | head` closes our stdout early: that is the reader's choice, not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EPIPE') process.exit(process.exitCode ?? 0)
    throw err
  })
}

process.exitCode = await main(process.argv.slice(2), {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
  env: process.env,
  cwd: process.cwd()
})
