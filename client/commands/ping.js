// @ts-check
// sup ping: start the daemon if needed, and show that it answers.
import { connectDaemon } from '../daemon.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io, opts }) {
  const conn = await connectDaemon(paths, { start: true })
  try {
    const info = await conn.request('daemon.ping')
    io.out(opts.json ? JSON.stringify(info) : `pong: daemon ${info.pid} (sup ${info.version}), ${info.apps} app(s), balance ${info.balance}, ${info.home}`)
    return 0
  } finally {
    await conn.close()
  }
}
