// @ts-check
// One generation of an app: the settings it runs with and the caller's environment, frozen
// together. A start makes the first; a restart with new settings, or a reload, makes the
// next; a worker runs one revision from its start to its exit (daemon/worker/worker.js).

/**
 * @typedef {import('../../ipc/app-config.js').AppConfig} AppConfig
 *
 * @typedef {object} Revision
 * @property {AppConfig} config frozen
 * @property {Readonly<Record<string, string>>} shellEnv the caller's environment at its start
 */

/**
 * @param {AppConfig} config
 * @param {Record<string, string>} shellEnv
 * @returns {Revision}
 */
export function makeRevision (config, shellEnv) {
  return Object.freeze({
    config: Object.isFrozen(config) ? config : Object.freeze({ ...config }),
    shellEnv: Object.isFrozen(shellEnv) ? shellEnv : Object.freeze({ ...shellEnv })
  })
}

/**
 * The revision that follows `revision` with what `next` changes; the same one when nothing does.
 * @param {Revision} revision
 * @param {{ config?: AppConfig, shellEnv?: Record<string, string> }} next
 * @returns {Revision}
 */
export function reviseRevision (revision, { config = revision.config, shellEnv = revision.shellEnv }) {
  return config === revision.config && shellEnv === revision.shellEnv ? revision : makeRevision(config, shellEnv)
}
