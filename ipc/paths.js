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
  // A SUP_HOME set to the very folder PM2 would use asks for PM2's layout: the files a PM2
  // user's scripts name (dump.pm2, pm2.pid) keep PM2's names there (docs/pm2.md#files-on-disk).
  const pm2Layout = home === pm2Home(env)
  return {
    home,
    /** `pm2`: sup lives in PM2's home and uses PM2's file names; `sup`: design §8's names */
    layout: pm2Layout ? 'pm2' : 'sup',
    socket: join(home, 'sup.sock'),
    pidFile: join(home, pm2Layout ? 'pm2.pid' : 'daemon.pid'),
    daemonLog: join(home, 'daemon.log'),
    // `sup save` writes it, `sup resurrect` reads it (PM2's dump.pm2).
    dump: join(home, pm2Layout ? 'dump.pm2' : 'dump.json'),
    // The daemon's own state, written after every change, read after a crash.
    state: join(home, 'state.json'),
    // The supervisor's decisions and their reasons (sup events), kept across daemon restarts
    events: join(home, 'events.jsonl'),
    // `sup set` values by app name (PM2's module_conf.json)
    settings: join(home, 'settings.json'),
    logs: join(home, 'logs')
  }
}

/**
 * The folder PM2 itself would use in this environment: $PM2_HOME, else ~/.pm2.
 * @param {NodeJS.ProcessEnv} env
 */
function pm2Home (env) {
  return resolve(env.PM2_HOME || join(env.HOME || homedir(), '.pm2'))
}

/** @typedef {ReturnType<typeof resolvePaths>} SupPaths */

/**
 * The ws URL of the daemon's unix socket (ws's `ws+unix:` scheme: socket path, then ':' and the request path).
 * @param {string} socketPath
 */
export function socketUrl (socketPath) {
  return `ws+unix://${socketPath}:/`
}
