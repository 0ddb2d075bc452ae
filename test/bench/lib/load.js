// HTTP load against 127.0.0.1 only, bounded in time: wrk when it is on PATH (C, light on a
// small machine, the seeds' tool), else autocannon for keep-alive and a small closed-loop
// client here for one-connection-per-request.
import { connect } from 'node:net'
import { runCommand } from './procs.js'

/**
 * @typedef {object} LoadResult
 * @property {number} rps requests per second that got a complete answer
 * @property {number} requests
 * @property {number} errors socket errors and timeouts
 * @property {number} non2xx
 */

/** Which load generator this machine has. @returns {Promise<'wrk' | 'node'>} */
export async function pickLoader (wanted = 'auto') {
  if (wanted === 'node') return 'node'
  const found = (await runCommand('sh', ['-c', 'command -v wrk'])).code === 0
  if (wanted === 'wrk' && !found) throw new Error('--loader wrk: wrk is not on PATH (apt-get install wrk)')
  return found ? 'wrk' : 'node'
}

/**
 * @param {{ loader: 'wrk' | 'node', port: number, connections: number, seconds: number, close?: boolean, path?: string }} options
 *   path: what each request asks for (default "/")
 * @returns {Promise<LoadResult>}
 */
export function runLoad (options) {
  if (options.loader === 'wrk') return runWrk(options)
  return options.close ? runClosedLoop(options) : runAutocannon(options)
}

/** @param {{ port: number, connections: number, seconds: number, close?: boolean, path?: string }} options */
async function runWrk ({ port, connections, seconds, close = false, path = '/' }) {
  const args = ['-t1', `-c${connections}`, `-d${seconds}s`, '--timeout', '10s']
  if (close) args.push('-H', 'Connection: close')
  args.push(`http://127.0.0.1:${port}${path}`)
  const { code, stdout, stderr } = await runCommand('wrk', args, { timeout: (seconds + 30) * 1000 })
  if (code !== 0) throw new Error(`wrk failed: ${stderr || stdout}`)
  const num = (/** @type {RegExp} */ re) => Number(re.exec(stdout)?.[1] ?? 0)
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout)
  const errors = socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0
  const non2xx = num(/Non-2xx or 3xx responses: (\d+)/)
  const requests = num(/(\d+) requests in/)
  return { rps: num(/Requests\/sec:\s+([\d.]+)/), requests, errors, non2xx }
}

/** @param {{ port: number, connections: number, seconds: number, path?: string }} options */
async function runAutocannon ({ port, connections, seconds, path = '/' }) {
  const { default: autocannon } = await import('autocannon')
  const result = await autocannon({ url: `http://127.0.0.1:${port}${path}`, connections, duration: seconds, timeout: 10 })
  return {
    rps: result.requests.total / seconds,
    requests: result.requests.total,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx
  }
}

/**
 * `connections` loops, each: connect, send one request with Connection: close, read to
 * the end, again — until `seconds` are up.
 * @param {{ port: number, connections: number, seconds: number, path?: string }} options
 */
async function runClosedLoop ({ port, connections, seconds, path = '/' }) {
  const payload = Buffer.from(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`)
  const end = performance.now() + seconds * 1000
  let requests = 0
  let errors = 0
  let non2xx = 0
  const once = () => new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let head = ''
    socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')))
    socket.on('connect', () => socket.end(payload))
    socket.on('data', (chunk) => { if (head.length < 12) head += chunk.toString('latin1', 0, 12) })
    socket.on('error', () => { errors++; resolve(undefined) })
    socket.on('close', (hadError) => {
      if (hadError) return
      // HTTP/1.0 too: Python's http.server (the fork-mode reload scenario) answers in 1.0.
      if (/^HTTP\/1\.[01] 2/.test(head)) requests++
      else non2xx++
      resolve(undefined)
    })
  })
  const loop = async () => { while (performance.now() < end) await once() }
  const started = performance.now()
  await Promise.all(Array.from({ length: connections }, loop))
  return { rps: requests / ((performance.now() - started) / 1000), requests, errors, non2xx }
}
