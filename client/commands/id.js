// @ts-check
// sup id <name>: the worker ids of an app, printed as PM2 prints them (`[ 0, 1 ]`, `[]`).
import { inspect } from 'node:util'
import { connectDaemon } from '../daemon.js'

/**
 * @param {string} name
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (name, { paths, io }) {
  const conn = await connectDaemon(paths)
  try {
    /** @type {import('../../ipc/methods.js').WorkerRow[]} */
    const rows = await conn.request('app.list')
    io.out(inspect(rows.filter((row) => row.name === name).map((row) => row.id)))
    return 0
  } finally {
    await conn.close()
  }
}
