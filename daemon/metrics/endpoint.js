// @ts-check
// The optional Prometheus endpoint (design §6): off until asked for, on 127.0.0.1 unless
// another host is named. It serves the sampler's cached figures; a scrape never samples.
import { SupError } from '../../ipc/errors.js'
import { CONTENT_TYPE, renderPrometheus } from './prometheus.js'

export class MetricsEndpoint {
  /**
   * @param {{ collect: () => import('./prometheus.js').ExportedWorker[], logger: import('pino').Logger }} options
   */
  constructor ({ collect, logger }) {
    this.collect = collect
    this.logger = logger
    /** @type {import('node:http').Server | null} */
    this.server = null
    /** @type {{ host: string, port: number } | null} */
    this.address = null
  }

  /**
   * Serve on host:port, replacing an endpoint that is already open.
   * @param {{ host: string, port: number }} where
   */
  async open ({ host, port }) {
    // node:http is loaded when an endpoint opens: most daemons never open one (RSS).
    const { createServer } = await import('node:http')
    const server = createServer((req, res) => this.answer(req, res))
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
    const path = (req.url ?? '/').split('?')[0]
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n')
      return
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('sup serves Prometheus metrics at /metrics\n')
      return
    }
    const body = renderPrometheus(this.collect())
    res.writeHead(200, { 'content-type': CONTENT_TYPE, 'content-length': Buffer.byteLength(body) })
    res.end(req.method === 'HEAD' ? undefined : body)
  }
}
