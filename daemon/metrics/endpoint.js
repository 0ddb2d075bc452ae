// @ts-check
// The optional Prometheus endpoint (design §6): off until asked for, on 127.0.0.1 unless
// another host is named. It serves the sampler's cached figures; a scrape never samples.
import { hostname } from 'node:os'
import { SupError } from '../../ipc/errors.js'
import { CONTENT_TYPE, renderPrometheus } from './prometheus.js'

/**
 * Any local user (or, on 0.0.0.0, anyone) can connect: what one may hold is bounded, so the
 * daemon keeps its file descriptors for its apps, logs and CLI (issue 19). A scraper needs one.
 */
export const ENDPOINT_LIMITS = Object.freeze({
  /** Connections open at once; Node closes the ones over it as they are accepted. */
  maxConnections: 16,
  /** ms to send the request's headers (Node's default is 60 s). */
  headersTimeout: 5_000,
  /** ms for the whole request. */
  requestTimeout: 10_000,
  /** ms a connection may sit idle, between requests or before the first. */
  idleTimeout: 10_000,
  /** How often Node checks the two timeouts above (default 30 s). */
  checkInterval: 1_000
})

export class MetricsEndpoint {
  /**
   * @param {{ collect: () => import('./prometheus.js').ExportedWorker[], tallies?: () => import('./event-tallies.js').TallyFamily[], logger: import('pino').Logger }} options
   */
  constructor ({ collect, tallies = () => [], logger }) {
    this.collect = collect
    this.tallies = tallies
    this.logger = logger
    /** @type {import('node:http').Server | null} */
    this.server = null
    /** @type {{ host: string, port: number } | null} */
    this.address = null
    /** @type {Set<string>} */
    this.allowedHosts = new Set()
  }

  /**
   * Serve on host:port, replacing an endpoint that is already open.
   * @param {{ host: string, port: number }} where
   */
  async open ({ host, port }) {
    // node:http is loaded when an endpoint opens: most daemons never open one (RSS).
    const { createServer } = await import('node:http')
    const limits = ENDPOINT_LIMITS
    const server = createServer({
      headersTimeout: limits.headersTimeout,
      requestTimeout: limits.requestTimeout,
      connectionsCheckingInterval: limits.checkInterval,
      keepAliveTimeout: limits.idleTimeout
    }, (req, res) => this.answer(req, res))
    server.maxConnections = limits.maxConnections
    server.setTimeout(limits.idleTimeout, (socket) => socket.destroy())
    server.on('connection', (socket) => socket.on('error', () => {}))
    await new Promise((resolve, reject) => {
      server.once('error', (err) => {
        const code = /** @type {NodeJS.ErrnoException} */ (err).code
        if (code === 'EADDRINUSE') reject(new SupError('SUP_ERR_METRICS_PORT_IN_USE', { host, port }, { cause: err }))
        else reject(new SupError('SUP_ERR_METRICS_LISTEN_FAILED', { host, port, reason: err.message }, { cause: err }))
      })
      server.listen(port, host, () => resolve(undefined))
    })
    server.on('error', (err) => this.logger.warn({ err }, 'metrics endpoint error'))
    await this.close()
    this.server = server
    const actual = /** @type {import('node:net').AddressInfo} */ (server.address())
    this.address = { host, port: actual.port }
    this.allowedHosts = allowedHosts(host, actual.port)
    this.logger.info(this.address, 'metrics endpoint open')
    return this.status()
  }

  /** @returns {Promise<boolean>} whether one was open */
  async close () {
    const server = this.server
    if (!server) return false
    this.server = null
    this.address = null
    server.closeAllConnections()
    await new Promise((resolve) => server.close(() => resolve(undefined)))
    return true
  }

  status () {
    if (!this.address) return { serving: false, host: null, port: null, url: null }
    const { host, port } = this.address
    const shown = host.includes(':') ? `[${host}]` : host
    return { serving: true, host, port, url: `http://${shown}:${port}/metrics` }
  }

  /**
   * @param {import('node:http').IncomingMessage} req
   * @param {import('node:http').ServerResponse} res
   */
  answer (req, res) {
    // DNS rebinding: a web page whose name now points at 127.0.0.1 would read app names and
    // figures; its requests carry its own name as Host, which is not on the list.
    const host = req.headers.host
    if (host !== undefined && !this.allowedHosts.has(host.toLowerCase()) && !(this.allowedHosts.has('*') && hostOnly(host) === localAddress(req))) {
      res.writeHead(421, { 'content-type': 'text/plain', connection: 'close' }).end('sup answers only to loopback names and the address it listens on\n')
      return
    }
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n')
      return
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('sup serves Prometheus metrics at /metrics\n')
      return
    }
    const body = renderPrometheus(this.collect(), this.tallies())
    res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(body) })
    res.end(req.method === 'HEAD' ? undefined : body)
  }
}

/**
 * The Host headers the endpoint answers: loopback names and the address it listens on, with or
 * without the port, and this machine's name; on every interface, '*' lets a request name the
 * address its connection arrived on.
 * @param {string} host the address listened on
 * @param {number} port
 */
export function allowedHosts (host, port) {
  const names = ['localhost', '127.0.0.1', '[::1]', hostname().toLowerCase()]
  const everywhere = host === '0.0.0.0' || host === '::'
  if (!everywhere) names.push(host.includes(':') ? `[${host.toLowerCase()}]` : host.toLowerCase())
  const allowed = new Set(names.flatMap((name) => [name, `${name}:${port}`]))
  return everywhere ? new Set([...allowed, '*']) : allowed
}

/**
 * The name or address of a Host header, without its port and brackets.
 * @param {string} header
 */
function hostOnly (header) {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(header)
  if (bracketed) return bracketed[1].toLowerCase()
  return header.replace(/:\d+$/, '').toLowerCase()
}

/**
 * The address a request's connection arrived on, as a Host header would name it.
 * @param {import('node:http').IncomingMessage} req
 */
function localAddress (req) {
  return String(req.socket.localAddress ?? '').replace(/^::ffff:/, '').toLowerCase()
}
