// @ts-check
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Every path sup keeps on disk, derived from SUP_HOME (design §8).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function resolvePaths (env = process.env) {
  const home = resolve(env.SUP_HOME || join(homedir(), '.sup'))
  return {
    home,
    socket: join(home, 'sup.sock'),
    pidFile: join(home, 'daemon.pid'),
    daemonLog: join(home, 'daemon.log'),
    // `sup save` writes it, `sup resurrect` reads it (PM2's dump.pm2).
    dump: join(home, 'dump.json'),
    // The daemon's own state, written after every change, read after a crash.
    state: join(home, 'state.json'),
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
