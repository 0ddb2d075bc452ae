// @ts-check
// What the action keys of the app list ask the daemon: one row per action, with the question
// asked first when it changes or ends something (monit/keys.js binds the keys to the names).

/**
 * @typedef {{ label: string, target: string, app: string, size: number, workers: import('./model.js').WorkerView[] }} Selection
 *   size: the workers of the whole app
 * @typedef {object} Action
 * @property {string} method the IPC method
 * @property {(s: Selection) => Record<string, unknown>} params
 * @property {(s: Selection) => string | null} ask the confirmation's question; null: none
 * @property {string} doing
 * @property {string} done
 */

/** @param {Selection} s */
const targets = (s) => ({ targets: [s.target] })
/** @param {Selection} s */
const workers = (s) => `${s.workers.length} worker${s.workers.length === 1 ? '' : 's'}`

/** @type {Record<string, Action>} */
export const ACTIONS = {
  restart: { method: 'app.restart', params: targets, ask: (s) => `restart ${s.label} (${workers(s)})?`, doing: 'restarting', done: 'restarted' },
  reload: { method: 'app.reload', params: targets, ask: (s) => `reload ${s.label} (${workers(s)}, one at a time)?`, doing: 'reloading', done: 'reloaded' },
  stop: { method: 'app.stop', params: targets, ask: (s) => `stop ${s.label} (${workers(s)})?`, doing: 'stopping', done: 'stopped' },
  // sup start <name> of an app that exists is a restart of it (client/commands/start.js).
  start: { method: 'app.restart', params: targets, ask: () => null, doing: 'starting', done: 'started' },
  delete: { method: 'app.delete', params: (s) => ({ targets: [s.app] }), ask: (s) => `delete ${s.app} (${workers(s)}: stopped and forgotten)?`, doing: 'deleting', done: 'deleted' },
  'scale.up': { method: 'app.scale', params: (s) => ({ target: s.app, count: '+1' }), ask: (s) => `scale ${s.app} up to ${s.size + 1} workers?`, doing: 'scaling', done: 'scaled' },
  'scale.down': { method: 'app.scale', params: (s) => ({ target: s.app, count: '-1' }), ask: (s) => `scale ${s.app} down to ${Math.max(0, s.size - 1)} worker${s.size === 2 ? '' : 's'}?`, doing: 'scaling', done: 'scaled' },
  flush: { method: 'logs.flush', params: (s) => ({ target: s.app }), ask: (s) => `flush (empty) the log files of ${s.app}?`, doing: 'flushing the logs of', done: 'flushed the logs of' }
}
