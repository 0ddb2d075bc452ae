// N copies of an app in one ecosystem file (JSON, read alike by sup and PM2), one port each.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { freePort } from './procs.js'

/**
 * @param {string} dir where to write it
 * @param {string} script
 * @param {number} count
 */
export async function writeEcosystem (dir, script, count) {
  const apps = []
  for (let i = 0; i < count; i++) apps.push({ name: `app${i}`, script, env: { PORT: String(await freePort()) } })
  const file = join(dir, 'bench-apps.config.json')
  writeFileSync(file, JSON.stringify({ apps }))
  return { file, ports: apps.map((a) => Number(a.env.PORT)) }
}
