// @ts-check
// SUP_HOME deleted under a running daemon (an `rm -rf ~/.sup` while apps run, a tmp cleaner):
// without this the socket file is gone, the next `sup ls` finds no daemon, starts a second one
// in the empty home, and the first daemon's apps run on unseen. The guard notices the loss
// (an inotify watch on the home for speed, a slow stat as the fallback) and puts the home back
// the way it was: folders, daemon.pid, the socket, the log files and the state file.
import { mkdirSync, statSync, watch } from 'node:fs'
import { ensureHome } from '../ipc/safe-fs.js'
import { basename } from 'node:path'

/** How long the home must stay quiet after a change before it is checked (an `rm -rf` is many events). */
export const SETTLE_MS = 150
/** The fallback check, for changes the watch does not see (a watch on a folder that was replaced). */
export const POLL_MS = 5000

/**
 * @typedef {object} HomeGuardOptions
 * @property {import('../ipc/paths.js').SupPaths} paths
 * @property {import('pino').Logger} logger
 * @property {() => number | null} socketIno the inode of the socket this daemon listens on, null before it does
 * @property {() => Promise<void>} restore recreate what was lost; called with the folders already made
 */

/**
 * Watch SUP_HOME; when this daemon's socket is no longer at its path, remake the folders and
 * call `restore`. Returns a function that stops watching.
 * @param {HomeGuardOptions} options
 */
export function guardHome ({ paths, logger, socketIno, restore }) {
  /** @type {import('node:fs').FSWatcher | null} */
  let watcher = null
  /** @type {NodeJS.Timeout | null} */
  let settle = null
  /** @type {Promise<void> | null} */
  let restoring = null
  let stopped = false

  const socketName = basename(paths.socket)
  const homeName = basename(paths.home)

  const watchHome = () => {
    watcher?.close()
    watcher = null
    try {
      watcher = watch(paths.home, { persistent: false }, (event, name) => {
        if (event === 'rename' && (name === null || name === socketName || name === homeName)) soon()
      })
      // The folder itself removed: the watch ends with an error on some systems.
      watcher.on('error', () => soon())
    } catch {
      // No folder to watch (yet): the poll finds out.
    }
  }

  const soon = () => {
    if (stopped) return
    if (settle) clearTimeout(settle)
    settle = setTimeout(check, SETTLE_MS)
    settle.unref()
  }

  const check = () => {
    settle = null
    if (stopped || restoring || isIntact(paths.socket, socketIno())) return
    restoring = (async () => {
      logger.warn({ home: paths.home }, 'SUP_HOME lost its socket (deleted?); putting it back')
      try {
        // Remade as a new home would be: a folder someone else put there meanwhile is refused.
        ensureHome(paths, { create: true })
        mkdirSync(paths.logs, { recursive: true, mode: 0o700 })
        await restore()
        logger.info({ home: paths.home }, 'SUP_HOME restored')
      } catch (err) {
        if (/** @type {{ code?: string }} */ (err).code === 'SUP_ERR_DAEMON_ALREADY_RUNNING') {
          // Another daemon was started in the emptied home before this one noticed. Its socket
          // is not ours to take; this daemon's apps go on running, reachable by pid only.
          logger.error({ err, home: paths.home }, 'another daemon took SUP_HOME; this one no longer owns it')
          stopped = true
        } else {
          logger.error({ err, home: paths.home }, 'could not restore SUP_HOME')
        }
      } finally {
        restoring = null
        if (!stopped) watchHome()
      }
    })()
  }

  const poll = setInterval(check, POLL_MS)
  poll.unref()
  watchHome()

  return () => {
    stopped = true
    clearInterval(poll)
    if (settle) clearTimeout(settle)
    watcher?.close()
  }
}

/**
 * @param {string} socketPath
 * @param {number | null} ino
 */
function isIntact (socketPath, ino) {
  if (ino === null) return true
  try {
    return statSync(socketPath).ino === ino
  } catch {
    return false
  }
}
