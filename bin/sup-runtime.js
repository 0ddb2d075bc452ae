#!/usr/bin/env node
// @ts-check
// sup-runtime <script|config> [options]: run apps in the foreground, for containers (docs/deploy.md).
// The one entry point that wires the CLI's config loading (client/) to an in-process daemon
// (daemon/): in a container one process receives the signals and is the apps' parent.
import { spawn } from 'node:child_process'
import { accessSync, constants, statSync } from 'node:fs'
import { constants as osConstants } from 'node:os'
import { parseRuntimeArgs } from '../client/runtime-args.js'
import { runForeground } from '../daemon/foreground.js'
import { reaperPlan } from '../daemon/reaper.js'

// As PID 1, first put an init in front of us that reaps orphans (daemon/reaper.js).
/** @type {((file: string, args: string[], env: NodeJS.ProcessEnv) => never) | undefined} */
const execve = /** @type {{ execve?: (file: string, args: string[], env: NodeJS.ProcessEnv) => never }} */ (/** @type {unknown} */ (process)).execve
const plan = reaperPlan({
  pid: process.pid,
  env: process.env,
  canExecve: typeof execve === 'function',
  command: [process.execPath, ...process.execArgv, ...process.argv.slice(1)],
  isExecutable: (file) => {
    try {
      accessSync(file, constants.X_OK)
      return statSync(file).isFile()
    } catch { return false }
  }
})
/** @type {string | undefined} why PID 1 runs without an init, for the warning */
let noInit = plan.kind === 'warn' ? plan.why : undefined
if (plan.kind === 'execve' && execve) {
  try {
    execve(plan.file, plan.args, process.env)
  } catch (error) {
    noInit = `${plan.file} could not be started: ${/** @type {Error} */ (error).message}`
  }
}
if (plan.kind === 'spawn') {
  // tini -s below us reaps; we pass signals on and end with its code.
  const init = spawn(plan.file, plan.args, { stdio: 'inherit' })
  for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGUSR1', 'SIGUSR2', 'SIGQUIT', 'SIGWINCH'])) {
    process.on(signal, () => { init.kill(signal) })
  }
  await new Promise((resolve) => {
    init.once('error', (error) => {
      noInit = `${plan.file} could not be started: ${error.message}`
      resolve(undefined)
    })
    init.once('exit', (code, signal) => process.exit(code ?? 128 + (signal ? osConstants.signals[signal] : 0)))
  })
}

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
  : await runForeground({ configs: parsed.configs, json: parsed.json, env: { ...process.env, ...parsed.daemonEnv }, out: writer(process.stdout), err: writer(process.stderr), noInit })
// Whatever is left (a client that never closed its socket) must not keep a stopped runtime alive.
process.stdout.write('', () => process.exit(code))
