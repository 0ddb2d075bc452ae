// @ts-check
// sup update (PM2's `pm2 update`): after installing a new sup, move the running apps to a
// daemon of the new version. Save, stop everything, start a daemon from this CLI's files,
// resurrect what was saved. The apps are down in between, as with PM2.
import { connectDaemon, killDaemon } from '../daemon.js'
import { reportResurrect } from '../format.js'
import { stringEnv } from '../shell-env.js'

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io }) {
  const old = await connectDaemon(paths, { start: true })
  const { version } = await old.request('daemon.ping')
  // Nothing running: the dump on disk is left as it is (an empty save would refuse anyway).
  if ((await old.request('app.list')).length > 0) {
    const saved = await old.request('dump.save', {})
    io.out(`saved ${saved.apps.length} app(s) to ${saved.file}`)
  }
  await killDaemon(old, paths, (pid) => io.out(`stopping the daemon ${version} (pid ${pid}) and its apps...`))
  const conn = await connectDaemon(paths, { start: true })
  try {
    const info = await conn.request('daemon.ping')
    io.out(`daemon ${info.version} started (pid ${info.pid})`)
    return reportResurrect(await conn.request('dump.resurrect', { shellEnv: stringEnv(io.env) }), io)
  } finally {
    await conn.close()
  }
}
