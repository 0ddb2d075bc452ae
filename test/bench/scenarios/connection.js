// Throughput with a new connection per request (Connection: close): here the primary's
// accept-and-hand-off is on the data path, so round-robin and OS balancing differ.
import { supHasBalanceOs } from '../lib/serve.js'
import { measureThroughput } from './throughput.js'

/** @param {import('../run.js').BenchContext} ctx */
export async function run (ctx) {
  const os = await supHasBalanceOs(ctx)
  if (!os) ctx.note('sup with SUP_BALANCE=os is not available on this checkout; measured the default only')
  /** @type {import('../lib/serve.js').Side[]} */
  const sides = ['primary', 'primary-none', 'sup', ...(os ? /** @type {const} */ (['sup-os']) : []), ...(ctx.pm2 ? /** @type {const} */ (['pm2']) : [])]
  return measureThroughput(ctx, { close: true, sides, floorFor: { 'primary-none': 'primary-none', 'sup-os': 'primary-none' } })
}
