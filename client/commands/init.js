// @ts-check
// sup init | ecosystem [simple]: PM2's way to begin an ecosystem file, ./ecosystem.config.js.
// Written over a file already there, as PM2 does (scripts run `pm2 init` and go on), but that
// file, often written by hand, is first kept as ecosystem.config.js.bak.
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
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
 * @param {string | undefined} mode "simple" for one app with a name and a script; any other word is the full sample, as in PM2
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (mode, { io }) {
  const file = join(io.cwd, FILE)
  const sample = mode === 'simple' ? SIMPLE : FULL
  const before = readIfThere(file)
  if (before === sample) {
    io.out(`${file} is already the sample (sup start ${FILE} starts its apps)`)
    return 0
  }
  try {
    if (before !== null) renameSync(file, `${file}.bak`)
    writeFileSync(file, sample, { flag: 'wx' })
  } catch (err) {
    throw new SupError('SUP_ERR_CONFIG_WRITE_FAILED', { file, reason: /** @type {Error} */ (err).message }, { cause: err })
  }
  io.out(`wrote ${file} (sup start ${FILE} starts its apps)${before === null ? '' : `; the file that was there is ${file}.bak`}`)
  return 0
}

/**
 * @param {string} file
 * @returns {string | null} null when there is no such file
 */
function readIfThere (file) {
  try {
    return readFileSync(file, 'utf8')
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ENOENT') return null
    throw new SupError('SUP_ERR_CONFIG_WRITE_FAILED', { file, reason: /** @type {Error} */ (err).message }, { cause: err })
  }
}
