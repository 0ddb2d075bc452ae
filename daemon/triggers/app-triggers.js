// @ts-check
// What restarts an app by itself, besides its workers exiting: cron_restart and watch. One
// per app, created with it and stopped with it; it only says when, the supervisor restarts.
import { CronSchedule } from './cron-restart.js'
import { buildIgnore } from './watch-ignore.js'
import { FileWatch } from './watch-restart.js'

/**
 * @typedef {object} TriggerStatus
 * @property {{ expression: string, next: number | null } | null} cron_restart next: ms since the epoch
 * @property {{ paths: string[], ignore: string[], delay: number, ready: boolean, error: ReturnType<import('../../ipc/errors.js').SupError['toJSON']> | null } | null} watch ready: the first scan is done
 */

export class AppTriggers {
  /**
   * @param {object} options
   * @param {import('../../ipc/app-config.js').AppConfig} options.config
   * @param {string[]} options.logFiles the app's log files, never a reason to restart it
   * @param {(reason: string) => void} options.restart
   * @param {import('pino').Logger} options.logger
   * @param {() => number} [options.now]
   * @param {import('./cron-restart.js').Timers} [options.timers]
   * @param {import('./watch-restart.js').WatchFn} [options.watch]
   */
  constructor ({ config, logFiles, restart, logger, now, timers, watch }) {
    /** @type {CronSchedule | null} */
    this.cron = null
    /** @type {FileWatch | null} */
    this.files = null
    this.config = config
    if (config.cron_restart) {
      const expression = config.cron_restart
      this.cron = new CronSchedule({ expression, onTick: () => restart(`cron_restart "${expression}"`), now, timers }).start()
    }
    if (config.watch) {
      const paths = config.watch_paths.length > 0 ? config.watch_paths : [config.cwd]
      this.files = new FileWatch({
        paths,
        ignored: buildIgnore({ roots: paths, patterns: config.ignore_watch, logFiles }),
        delay: config.watch_delay,
        onChange: (path) => restart(`watch: ${path} changed`),
        logger,
        timers,
        watch
      })
    }
  }

  /** @returns {TriggerStatus} */
  status () {
    const { cron, files, config } = this
    return {
      cron_restart: cron && { expression: cron.expression, next: cron.next },
      watch: files && { paths: files.paths, ignore: config.ignore_watch, delay: config.watch_delay, ready: files.ready, error: files.error }
    }
  }

  async stop () {
    this.cron?.stop()
    await this.files?.close()
  }
}
