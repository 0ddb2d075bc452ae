// @ts-check
// What `sup monit` itself costs while 50 workers send figures every second:
//   node test/bench/monit-cpu.js [--workers 50] [--seconds 60] [--size 200x50]
// A temp SUP_HOME, N idle cluster workers, monit in a private tmux server; its CPU is read
// from /proc/<pid>/stat over the window (utime + stime). Also: the first screen after the
// daemon answered (SUP_MONIT_TIMING), and how long `q` takes to end it. Linux and tmux only.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'

const ROOT = new URL('../..', import.meta.url).pathname
const SUP = join(ROOT, 'bin', 'sup.js')
const { values } = parseArgs({ options: { workers: { type: 'string', default: '50' }, seconds: { type: 'string', default: '60' }, size: { type: 'string', default: '200x50' } } })
const workers = Number(values.workers)
const seconds = Number(values.seconds)
const [width, height] = values.size.split('x')
const home = mkdtempSync(join(tmpdir(), 'sup-bench-monit-'))
const timing = join(home, 'timing.jsonl')
const socket = `sup-bench-monit-${process.pid}`
const env = { ...process.env, SUP_HOME: home, EXIT_AFTER: String(24 * 3600 * 1000) }
/** @param {string[]} args */
const tmux = (args) => execFileSync('tmux', ['-L', socket, ...args], { encoding: 'utf8' })
/** @param {number} pid */
const ticks = (pid) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  return Number(fields[11]) + Number(fields[12])
}
const hz = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim())

/**
 * @param {(screen: string) => boolean} predicate
 * @param {string} what
 * @param {number} timeout ms
 */
async function waitScreen (predicate, what, timeout) {
  const deadline = Date.now() + timeout
  let screen = ''
  while (Date.now() < deadline) {
    screen = tmux(['capture-pane', '-p', '-t', 'main'])
    if (predicate(screen)) return screen
    await sleep(200)
  }
  throw new Error(`timed out waiting for ${what}; the screen:\n${screen}`)
}

try {
  execFileSync(process.execPath, [SUP, 'start', join(ROOT, 'test/fixtures/apps/exits-after.js'), '-n', 'idle', '-i', String(workers)], { env, stdio: 'ignore' })
  tmux(['-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', width, '-y', height, '-e', `SUP_HOME=${home}`, '-e', 'TERM=xterm', '-e', `SUP_MONIT_TIMING=${timing}`, `exec ${process.execPath} ${SUP} monit`])
  const pid = Number(tmux(['list-panes', '-t', 'main', '-F', '#{pane_pid}']).trim())
  await waitScreen((s) => new RegExp(`idle \\(${workers}\\) +online`).test(s), `${workers} workers online on screen`, 120_000)
  // Past the start (history, tails) and a few samples.
  await sleep(5000)
  const before = ticks(pid)
  await sleep(seconds * 1000)
  const spent = (ticks(pid) - before) / hz
  const first = JSON.parse(readFileSync(timing, 'utf8').split('\n')[0])
  const quitAt = performance.now()
  tmux(['send-keys', '-t', 'main', 'q'])
  // Ended once a zombie (tmux reaps it later, up to seconds on a busy machine) or gone.
  while (performance.now() - quitAt < 10_000) {
    let state = ''
    try { state = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[0] } catch { break }
    if (state === 'Z') break
    await sleep(5)
  }
  const quitMs = performance.now() - quitAt
  process.stdout.write(JSON.stringify({ workers, seconds, size: values.size, monit_cpu_percent: +(100 * spent / seconds).toFixed(2), cpu_seconds: spent, first_screen_ms_after_answer: +(first.drawn_ms - first.answered_ms).toFixed(1), quit_ms: Math.round(quitMs) }) + '\n')
} finally {
  try { execFileSync('tmux', ['-L', socket, 'kill-server'], { stdio: 'ignore' }) } catch {}
  try { execFileSync(process.execPath, [SUP, 'kill'], { env, stdio: 'ignore' }) } catch {}
  rmSync(home, { recursive: true, force: true })
}
