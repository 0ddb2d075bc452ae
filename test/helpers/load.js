// @ts-check
// A bounded HTTP load client for tests and benchmarks: N concurrent loops against 127.0.0.1,
// over keep-alive connections or a fresh connection per request. It stops by itself after
// `maxRequests` or `duration`, whichever comes first, and counts every failure by kind, so a
// test can assert "zero failed requests" and say which kind when it is not zero.
import { Agent, request } from 'node:http'

/**
 * @typedef {'refused' | 'reset' | 'timeout' | 'status' | 'other'} FailureKind
 *
 * @typedef {object} LoadOptions
 * @property {number} port
 * @property {string} [host] default 127.0.0.1
 * @property {string} [path] default /
 * @property {'keep-alive' | 'fresh'} [mode] keep-alive: one pooled connection per loop, reused;
 *   fresh: a new connection (Connection: close) for every request. Default keep-alive.
 * @property {number} [concurrency] loops running at once, default 10
 * @property {number} [maxRequests] stop starting requests after this many, default unbounded
 * @property {number} [duration] stop starting requests after this many ms, default 30000
 * @property {number} [requestTimeout] a request with no answer after this many ms counts as a
 *   timeout, default 10000 (generous: test machines are small and shared)
 * @property {number} [pause] ms each loop waits between its requests, default 0
 * @property {(response: { status: number, body: string, headers: import('node:http').IncomingHttpHeaders }) => void} [onResponse]
 *   called for every answered request (2xx or not)
 *
 * @typedef {object} LoadResult
 * @property {number} ok 2xx answers
 * @property {number} failed everything else
 * @property {Record<FailureKind, number>} failures failed, by kind
 * @property {string[]} samples the first few failure messages, for test output
 * @property {number} elapsed ms from start to the last answer
 * @property {number} rps ok answers per second
 * @property {{ p50: number, p99: number, max: number }} latency ms, over answered requests
 *
 * @typedef {object} Load
 * @property {() => Promise<LoadResult>} stop start no new request, wait for those in flight
 * @property {Promise<LoadResult>} done resolves once the load has ended (stopped or bounded)
 * @property {() => LoadResult} snapshot counts so far
 */

const MAX_SAMPLES = 10
const MAX_LATENCIES = 200_000

/**
 * Start a load; it runs until stop(), `maxRequests` or `duration`.
 * @param {LoadOptions} options
 * @returns {Load}
 */
export function startLoad (options) {
  const {
    port,
    host = '127.0.0.1',
    path = '/',
    mode = 'keep-alive',
    concurrency = 10,
    maxRequests = Infinity,
    duration = 30_000,
    requestTimeout = 10_000,
    pause = 0,
    onResponse
  } = options
  if (!Number.isInteger(port) || port <= 0) throw new TypeError(`load: port must be a positive integer, got ${port}`)
  if (mode !== 'keep-alive' && mode !== 'fresh') throw new TypeError(`load: mode must be "keep-alive" or "fresh", got ${mode}`)
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new TypeError(`load: concurrency must be an integer >= 1, got ${concurrency}`)

  const agent = mode === 'keep-alive' ? new Agent({ keepAlive: true, maxSockets: concurrency }) : false
  const started = performance.now()
  /** Set by stop() or the duration timer; read by every loop. */
  const run = { stopping: false }
  let issued = 0
  let lastAnswer = started
  /** @type {number[]} */
  const latencies = []
  const counts = { ok: 0, failures: { refused: 0, reset: 0, timeout: 0, status: 0, other: 0 } }
  /** @type {string[]} */
  const samples = []

  const deadline = setTimeout(() => { run.stopping = true }, duration)

  /** @param {FailureKind} kind @param {string} message */
  const fail = (kind, message) => {
    counts.failures[kind]++
    if (samples.length < MAX_SAMPLES) samples.push(`${kind}: ${message}`)
  }

  const one = () => new Promise((resolve) => {
    const begin = performance.now()
    const req = request({ host, port, path, agent, timeout: requestTimeout }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => { body += chunk })
      res.on('error', (err) => {
        fail(classify(err), err.message)
        resolve(undefined)
      })
      res.on('end', () => {
        const status = res.statusCode ?? 0
        lastAnswer = performance.now()
        if (latencies.length < MAX_LATENCIES) latencies.push(lastAnswer - begin)
        if (status >= 200 && status < 300) counts.ok++
        else fail('status', `HTTP ${status}`)
        onResponse?.({ status, body, headers: res.headers })
        resolve(undefined)
      })
    })
    req.on('timeout', () => req.destroy(Object.assign(new Error(`no answer within ${requestTimeout} ms`), { code: 'LOAD_TIMEOUT' })))
    req.on('error', (err) => {
      fail(classify(err), `${/** @type {NodeJS.ErrnoException} */ (err).code ?? ''} ${err.message}`.trim())
      resolve(undefined)
    })
    req.end()
  })

  const loop = async () => {
    while (!run.stopping && issued < maxRequests) {
      issued++
      await one()
      if (pause > 0 && !run.stopping) await new Promise((resolve) => setTimeout(resolve, pause))
    }
  }

  const snapshot = () => {
    const failed = Object.values(counts.failures).reduce((a, b) => a + b, 0)
    const elapsed = lastAnswer - started
    const sorted = [...latencies].sort((a, b) => a - b)
    const at = (/** @type {number} */ q) => sorted.length === 0 ? 0 : round(sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))])
    return {
      ok: counts.ok,
      failed,
      failures: { ...counts.failures },
      samples: [...samples],
      elapsed: round(elapsed),
      rps: elapsed > 0 ? round(counts.ok / (elapsed / 1000)) : 0,
      latency: { p50: at(0.5), p99: at(0.99), max: sorted.length === 0 ? 0 : round(sorted[sorted.length - 1]) }
    }
  }

  const done = Promise.all(Array.from({ length: concurrency }, loop)).then(() => {
    clearTimeout(deadline)
    if (agent) agent.destroy()
    return snapshot()
  })

  return {
    stop () {
      run.stopping = true
      return done
    },
    done,
    snapshot
  }
}

/**
 * Run a load to its end (maxRequests or duration).
 * @param {LoadOptions} options
 */
export function runLoad (options) {
  return startLoad(options).done
}

/**
 * Sort a request error into the kinds a test reports.
 * @param {Error} err
 * @returns {FailureKind}
 */
export function classify (err) {
  const code = /** @type {NodeJS.ErrnoException} */ (err).code
  if (code === 'ECONNREFUSED') return 'refused'
  if (code === 'ECONNRESET' || code === 'EPIPE' || code === 'ECONNABORTED') return 'reset'
  if (code === 'LOAD_TIMEOUT' || code === 'ETIMEDOUT') return 'timeout'
  return 'other'
}

/**
 * One line for assertion messages: "0 failed of 1234 (refused 0, reset 0, ...)".
 * @param {LoadResult} result
 */
export function describeLoad (result) {
  const kinds = Object.entries(result.failures).map(([kind, n]) => `${kind} ${n}`).join(', ')
  const samples = result.samples.length > 0 ? `; e.g. ${result.samples.slice(0, 3).join(' | ')}` : ''
  return `${result.failed} failed of ${result.ok + result.failed} (${kinds})${samples}`
}

/** @param {number} n */
const round = (n) => Math.round(n * 10) / 10
