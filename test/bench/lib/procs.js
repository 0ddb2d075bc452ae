// Processes and HTTP for the bench: spawn, probe, wait on a deadline, read /proc figures.
import { execFile, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { request } from 'node:http'
import { createServer } from 'node:net'

/** A port nobody listens on right now. @returns {Promise<number>} */
export function freePort () {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address())
      server.close(() => resolve(port))
    })
  })
}

/**
 * One GET to 127.0.0.1 on a fresh connection; resolves null on any failure.
 * @param {number} port
 * @returns {Promise<{ status: number, pid: number | null } | null>}
 */
export function probe (port, timeout = 2000) {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', agent: false, timeout }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('end', () => {
        let pid = null
        try { pid = JSON.parse(body).pid ?? null } catch {}
        resolve({ status: res.statusCode ?? 0, pid })
      })
      res.on('error', () => resolve(null))
    })
    req.on('timeout', () => req.destroy())
    req.on('error', () => resolve(null))
    req.end()
  })
}

/**
 * Probe until `count` distinct pids not in `exclude` have answered; resolves with them.
 * @param {number} port
 * @param {{ count?: number, exclude?: Set<number>, timeout?: number }} [options]
 */
export async function waitForPids (port, { count = 1, exclude = new Set(), timeout = 20_000 } = {}) {
  const deadline = performance.now() + timeout
  const seen = new Set()
  while (performance.now() < deadline) {
    const answer = await probe(port)
    if (answer?.status === 200 && answer.pid !== null && !exclude.has(answer.pid)) {
      seen.add(answer.pid)
      if (seen.size >= count) return [...seen]
    } else if (answer === null) {
      await sleep(2)
    }
  }
  throw new Error(`port ${port}: ${seen.size} of ${count} new worker(s) answered within ${timeout} ms`)
}

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms))

/** @param {number} pid */
export function isAlive (pid) {
  try {
    process.kill(pid, 0)
  } catch {
    return false
  }
  // A zombie is gone for our purposes.
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return false
  }
}

/**
 * Wait until none of `pids` is alive, checking every millisecond or so.
 * @param {number[]} pids
 */
export async function waitForGone (pids, timeout = 15_000) {
  const deadline = performance.now() + timeout
  while (pids.some(isAlive)) {
    if (performance.now() > deadline) throw new Error(`still alive after ${timeout} ms: ${pids.filter(isAlive).join(', ')}`)
    await sleep(1)
  }
}

/** Resident set size in bytes, from /proc. @param {number} pid */
export function rss (pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : NaN
}

/** CPU time used so far by a process (all its threads), in ms, from schedstat (ns). @param {number} pid */
export function cpuTime (pid) {
  let total = 0
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      total += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0])
    } catch {}
  }
  return total / 1e6
}

/** Children of a pid (direct), from /proc. @param {number} pid @returns {number[]} */
export function childrenOf (pid) {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
  } catch {
    return []
  }
}

/**
 * Run a command to completion; resolves with its output and wall time (ms).
 * @param {string} file
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv, cwd?: string, timeout?: number }} [options]
 * @returns {Promise<{ code: number, stdout: string, stderr: string, ms: number }>}
 */
export function runCommand (file, args, { env = process.env, cwd, timeout = 60_000 } = {}) {
  return new Promise((resolve) => {
    const start = performance.now()
    execFile(file, args, { env, cwd, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      const ms = performance.now() - start
      const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0
      resolve({ code, stdout, stderr, ms })
    })
  })
}

/**
 * Start a long-running process of ours (its own group, output dropped).
 * @param {string} file
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 */
export function startProcess (file, args, env) {
  const child = spawn(file, args, { env, stdio: 'ignore', detached: true })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  return {
    child,
    pid: /** @type {number} */ (child.pid),
    exited,
    /** SIGTERM, then SIGKILL to the group after `grace` ms. */
    async stop (grace = 5000) {
      if (child.exitCode !== null || child.signalCode !== null) return
      child.kill('SIGTERM')
      const timer = setTimeout(() => { try { process.kill(-(/** @type {number} */ (child.pid)), 'SIGKILL') } catch {} }, grace)
      await exited
      clearTimeout(timer)
    }
  }
}

/**
 * Resolve with the first pid outside `exclude` that answers, probing every `interval` ms
 * without waiting for earlier probes: a connection handed to a worker that just died
 * hangs until its timeout and must not hold up the measurement.
 * @param {number} port
 * @param {Set<number>} exclude
 * @param {{ interval?: number, timeout?: number }} [options]
 * @returns {Promise<number>}
 */
export function waitForNewPid (port, exclude, { interval = 2, timeout = 20_000 } = {}) {
  return new Promise((resolve, reject) => {
    let done = false
    let outstanding = 0
    const finish = (/** @type {() => void} */ settle) => {
      done = true
      clearInterval(ticker)
      clearTimeout(timer)
      settle()
    }
    const ticker = setInterval(() => {
      if (done || outstanding >= 64) return
      outstanding++
      probe(port, 1000).then((answer) => {
        outstanding--
        if (!done && answer?.status === 200 && answer.pid !== null && !exclude.has(answer.pid)) finish(() => resolve(/** @type {number} */ (answer.pid)))
      })
    }, interval)
    const timer = setTimeout(() => finish(() => reject(new Error(`port ${port}: no new worker answered within ${timeout} ms`))), timeout)
  })
}
