// @ts-check
// sup metrics [--port N [--host H]] [--off] [--json]: the daemon's Prometheus endpoint.
import { SupError } from '../../ipc/errors.js'
import { DEFAULT_METRICS_HOST, parsePort } from '../../ipc/metrics.js'
import { connectDaemon } from '../daemon.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  if (opts.off && (opts.port !== undefined || opts.host !== undefined)) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: '--off cannot go with --port or --host' })
  }
  if (opts.host !== undefined && opts.port === undefined) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: '--host needs --port (sup metrics --port 9209 --host 0.0.0.0)' })
  }
  const port = opts.port === undefined ? null : parsePort(String(opts.port))
  const conn = await connectDaemon(paths, { start: port !== null })
  try {
    if (opts.off) {
      const { closed } = await conn.request('metrics.close')
      io.out(opts.json ? JSON.stringify({ serving: false, closed }) : closed ? 'metrics endpoint closed' : 'the metrics endpoint was not open')
      return 0
    }
    const status = port === null
      ? await conn.request('metrics.status')
      : await conn.request('metrics.serve', { port, host: opts.host ?? DEFAULT_METRICS_HOST })
    if (opts.json) io.out(JSON.stringify(status))
    else if (status.serving) io.out(`serving Prometheus metrics at ${status.url}`)
    else io.out('the metrics endpoint is off (sup metrics --port 9209 opens it)')
    return 0
  } finally {
    await conn.close()
  }
}
