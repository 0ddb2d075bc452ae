#!/usr/bin/env node
// @ts-check
// sup-runtime <script|config> [options]: run apps in the foreground, for containers (docs/deploy.md).
// The one entry point that wires the CLI's config loading (client/) to an in-process daemon
// (daemon/): in a container one process receives the signals and is the apps' parent.
import { parseRuntimeArgs } from '../client/runtime-args.js'
import { runForeground } from '../daemon/foreground.js'

// A closed stdout (the log reader went away) must not end the supervision of the apps.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EPIPE') throw err
  })
}

/** @param {NodeJS.WriteStream} stream */
const writer = (stream) => (/** @type {string} */ text) => { if (stream.writable) stream.write(text) }

const parsed = await parseRuntimeArgs(process.argv.slice(2), {
  out: (text) => process.stdout.write(text + '\n'),
  err: (text) => process.stderr.write(text + '\n'),
  env: process.env,
  cwd: process.cwd()
})
const code = typeof parsed === 'number'
  ? parsed
  : await runForeground({ configs: parsed.configs, json: parsed.json, env: { ...process.env, ...parsed.daemonEnv }, out: writer(process.stdout), err: writer(process.stderr) })
// Whatever is left (a client that never closed its socket) must not keep a stopped runtime alive.
process.stdout.write('', () => process.exit(code))
