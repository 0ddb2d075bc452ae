// @ts-check
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Every path sup keeps on disk, derived from SUP_HOME, or PM2_HOME when only that is set (design §8).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function resolvePaths (env = process.env) {
  // PM2_HOME too, so a PM2 user's scripts that set it keep one home per setting (docs/pm2.md).
  const home = resolve(env.SUP_HOME || env.PM2_HOME || join(homedir(), '.sup'))
  return {
    home,
    socket: join(home, 'sup.sock'),
    pidFile: join(home, 'daemon.pid'),
    daemonLog: join(home, 'daemon.log'),
    dump: join(home, 'dump.json'),
    logs: join(home, 'logs')
  }
}

/** @typedef {ReturnType<typeof resolvePaths>} SupPaths */

/**
 * The ws URL of the daemon's unix socket (ws's `ws+unix:` scheme: socket path, then ':' and the request path).
 * @param {string} socketPath
 */
export function socketUrl (socketPath) {
  return `ws+unix://${socketPath}:/`
}
