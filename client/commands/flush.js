// @ts-check
// sup flush [target]
import { connectDaemon } from '../daemon.js'

/**
 * @param {string | undefined} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io }) {
  const conn = await connectDaemon(paths)
  try {
    const { flushed } = await conn.request('logs.flush', { target: target ?? null })
    io.out(flushed.length > 0 ? `flushed the logs of ${flushed.join(', ')}` : 'no logs to flush')
    return 0
  } finally {
    await conn.close()
  }
}
