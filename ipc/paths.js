// @ts-check
import { homedir } from 'node:os'
import { join, resolve } from 'node:path'

/**
 * Every path sup keeps on disk, derived from SUP_HOME (or $PM2_HOME/sup when only that is set) (design §8).
 * @param {NodeJS.ProcessEnv} [env]
 */
export function resolvePaths (env = process.env) {
  // Scripts that give each PM2 instance its own PM2_HOME get one sup home per value, inside
  // it, so sup never writes among PM2's own files (docs/pm2.md).
  const home = resolve(env.SUP_HOME || (env.PM2_HOME ? join(env.PM2_HOME, 'sup') : join(homedir(), '.sup')))
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
