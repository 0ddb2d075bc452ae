// @ts-check
// sup env <target>: the environment a worker runs with, `KEY: value` per line as PM2 prints it;
// secret-looking values masked unless --reveal.
import { connectDaemon } from '../daemon.js'
import { maskSecrets, secretKeyTest } from '../mask-secrets.js'
import { escapeDeep, stringifyForTerminal } from '../../ipc/terminal-text.js'

/**
 * @param {string} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    /** @type {Array<{ id: number, name: string, instance: number, env: Record<string, string> }>} */
    const answer = await conn.request('app.env', { target, cwd: io.cwd })
    const shown = opts.reveal ? answer : maskSecrets(answer, secretKeyTest(io.env))
    if (opts.json) {
      io.out(stringifyForTerminal(shown))
      return 0
    }
    const workers = escapeDeep(shown)
    for (const [i, worker] of workers.entries()) {
      if (workers.length > 1) io.out(`${i > 0 ? '\n' : ''}${worker.name}[${worker.instance}] (id ${worker.id})`)
      for (const key of Object.keys(worker.env).sort()) io.out(`${key}: ${worker.env[key]}`)
    }
    return 0
  } finally {
    await conn.close()
  }
}
