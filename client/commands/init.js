// @ts-check
// sup init | ecosystem [simple]: PM2's way to begin an ecosystem file, ./ecosystem.config.js.
// Unlike PM2, a file already there is kept unless --force: it is often written by hand.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { SupError } from '../../ipc/errors.js'

export const FILE = 'ecosystem.config.js'

const SIMPLE = `module.exports = {
  apps: [{
    name: 'app',
    script: './app.js'
  }]
}
`

const FULL = `// sup start ecosystem.config.js [--env production]; every key: docs/config.md
module.exports = {
  apps: [{
    name: 'api',
    script: './app.js',
    instances: 'max', // one cluster worker per CPU; sup reload replaces them without a dropped request
    max_memory_restart: '300M',
    env: {
      NODE_ENV: 'development'
    },
    env_production: {
      NODE_ENV: 'production'
    }
  }, {
    name: 'worker',
    script: './worker.js',
    exec_mode: 'fork',
    cron_restart: '0 3 * * *'
  }]
}
`

/**
 * @param {string | undefined} mode "simple" for one app with a name and a script
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (mode, { io, opts }) {
  const file = join(io.cwd, FILE)
  try {
    writeFileSync(file, mode === 'simple' ? SIMPLE : FULL, { flag: opts.force ? 'w' : 'wx' })
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'EEXIST') throw new SupError('SUP_ERR_CONFIG_FILE_EXISTS', { file })
    throw err
  }
  io.out(`wrote ${file} (sup start ${FILE} starts its apps)`)
  return 0
}
