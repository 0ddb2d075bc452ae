#!/usr/bin/env node
// @ts-check
// Where the daemon's CPU per logged line goes (issue 22), in one process and one run: the
// daemon's own log path (LogSink: batched reads, the ring, writev to the files) fed by child
// processes that each write a ~230-byte line at a steady rate, against the same reads without
// the files, without the ring and the files, and against the floor of any reader woken that
// often: a timer that does nothing, firing as often as the log path read. Each way with the
// writers on pipes (what workers get, daemon/logs/log-pipe.js) and on socket pairs (what Node
// gives, and workers had before). Rounds alternate between the ways (the machine's noise is
// large); CPU is this process's (process.cpuUsage), the writers' not.
//   node test/bench/log-path.js [--rate 10000] [--writers 2] [--seconds 5] [--rounds 4]
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { LogPipes } from '../../daemon/logs/log-pipe.js'
import { LogSink } from '../../daemon/logs/sink.js'
import { appConfig } from '../helpers/fake-effects.js'

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '10000' },
    writers: { type: 'string', default: '2' },
    seconds: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '4' }
  }
})
const rate = Number(values.rate)
const writers = Number(values.writers)
const seconds = Number(values.seconds)
const quiet = /** @type {any} */ ({ info () {}, warn () {}, error () {}, debug () {}, child () { return quiet } })

/** A writer: `rate` lines a second, written as the clock says they are due (a line per write). */
const WRITER = `
const line = JSON.stringify({ level: 30, time: Date.now(), pid: process.pid, hostname: 'bench', reqId: 'req-1', res: { statusCode: 200 }, req: { method: 'GET', url: '/' }, responseTime: 0.1, msg: 'request completed' }) + '\\n'
const perMs = Number(process.argv[1]) / 1000
const start = Date.now()
let written = 0
const tick = setInterval(() => { for (const due = Math.floor((Date.now() - start) * perMs); written < due; written++) process.stdout.write(line) }, 1)
setTimeout(() => clearInterval(tick), Number(process.argv[2]) * 1000)
`

/** @param {number[]} list */
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]

/**
 * Feed `writers` writers into a LogSink for `seconds`; the CPU it took and how often it read.
 * @param {{ ring: boolean, files: boolean, pipes: boolean }} keep
 */
async function logPath (keep) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-bench-log-path-'))
  const sink = new LogSink({ config: appConfig({ name: 'web' }), logsDir: dir, logger: quiet, linesWanted: () => false })
  if (!keep.ring) sink.ring.pushLines = () => {}
  if (!keep.files) sink.writeChunk = (paths, source, buf) => { if (keep.ring) sink.ring.pushLines({ time: 0, app: 'web', ...source }, buf); return true }
  const pipes = new LogPipes()
  if (keep.pipes) await pipes.reserve(writers)
  /** @type {import('node:stream').Readable[]} */
  const streams = []
  const children = Array.from({ length: writers }, () => {
    const pair = keep.pipes ? pipes.take() : null
    if (keep.pipes && !pair) throw new Error('log-path: no pipe could be made')
    const child = spawn(process.execPath, ['-e', WRITER, String(rate), String(seconds)], { stdio: ['ignore', pair?.out.write ?? 'pipe', 'inherit'] })
    if (pair) {
      closeSync(pair.out.write)
      closeSync(pair.err.write)
      pair.err.readable.destroy()
    }
    streams.push(pair?.out.readable ?? /** @type {import('node:stream').Readable} */ (child.stdout))
    return child
  })
  pipes.close()
  let reads = 0
  streams.forEach((stream, i) => {
    stream.on('data', () => { reads++ })
    sink.attach(stream, { id: i, instance: i, stream: 'out' })
  })
  const before = process.cpuUsage()
  await Promise.all([...children.map((child) => once(child, 'exit')), ...streams.map((stream) => once(stream, 'close'))])
  const cpu = process.cpuUsage(before)
  await sink.close()
  rmSync(dir, { recursive: true, force: true })
  return { cpuMs: (cpu.user + cpu.system) / 1000, reads }
}

/**
 * A timer that does nothing, `wakeups` times over `seconds`: what a reader woken as often costs
 * at the least.
 * @param {number} wakeups
 */
async function idleWakeups (wakeups) {
  const every = (seconds * 1000) / wakeups
  const before = process.cpuUsage()
  let fired = 0
  await new Promise((resolve) => {
    const tick = setInterval(() => { if (++fired >= wakeups) { clearInterval(tick); resolve(undefined) } }, every)
  })
  const cpu = process.cpuUsage(before)
  return { cpuMs: (cpu.user + cpu.system) / 1000, reads: fired }
}

const lines = rate * writers * seconds
/** @type {Record<string, Array<{ cpuMs: number, reads: number }>>} */
const results = {
  'pipes: log path (ring + files)': [],
  'pipes: reads only': [],
  'pipes: a timer as often, doing nothing': [],
  'socket pairs: log path (ring + files)': [],
  'socket pairs: reads + ring (no files)': [],
  'socket pairs: reads only': [],
  'socket pairs: a timer as often, doing nothing': []
}
process.stderr.write(`log-path: ${writers} writers × ${rate} lines/s for ${seconds} s, ${values.rounds} rounds\n`)
for (let round = 0; round < Number(values.rounds); round++) {
  const piped = await logPath({ ring: true, files: true, pipes: true })
  results['pipes: log path (ring + files)'].push(piped)
  results['pipes: reads only'].push(await logPath({ ring: false, files: false, pipes: true }))
  results['pipes: a timer as often, doing nothing'].push(await idleWakeups(piped.reads))
  const full = await logPath({ ring: true, files: true, pipes: false })
  results['socket pairs: log path (ring + files)'].push(full)
  results['socket pairs: reads + ring (no files)'].push(await logPath({ ring: true, files: false, pipes: false }))
  results['socket pairs: reads only'].push(await logPath({ ring: false, files: false, pipes: false }))
  results['socket pairs: a timer as often, doing nothing'].push(await idleWakeups(full.reads))
  process.stderr.write(`  round ${round + 1} done\n`)
}
process.stdout.write(`| way | CPU, median of ${values.rounds} (ms) | % of a core | reads (or wake-ups) | µs a line | µs a read |\n|---|---|---|---|---|---|\n`)
for (const [name, runs] of Object.entries(results)) {
  const cpuMs = median(runs.map((r) => r.cpuMs))
  const reads = median(runs.map((r) => r.reads))
  process.stdout.write(`| ${name} | ${cpuMs.toFixed(0)} | ${(cpuMs / seconds / 10).toFixed(1)} | ${reads} | ${((cpuMs * 1000) / lines).toFixed(2)} | ${((cpuMs * 1000) / reads).toFixed(0)} |\n`)
}
