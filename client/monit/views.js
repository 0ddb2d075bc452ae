// @ts-check
// The full-screen views of `sup monit` beside the app list (detail today; logs and events
// next), and how one is added: a module exports a factory that takes the ViewContext and
// returns a MonitView; monit.js lists the factory in VIEWS. Its keys go into the one keymap
// (monit/keys.js), so the help shows them and a key bound twice fails at start.
//
//   export function createThingView (ctx) {
//     return {
//       name: 'thing', title: 'thing', openKeys: ['t'], openHelp: 'the thing of the selection',
//       keys: [{ keys: ['j', 'down'], action: 'thing.down', help: 'scroll down' }],
//       actions: { 'thing.down': () => { ... } },
//       render: (width, height) => 'text with {bold}blessed tags{/bold}, escaped with escapeTags',
//       open: async () => { ... ctx.request('app.describe', ...) ... }
//     }
//   }

/**
 * @typedef {object} ViewContext what a view may use
 * @property {import('./model.js').MonitModel} model
 * @property {(method: string, params?: Record<string, unknown>) => Promise<any>} request to the daemon (throws when not connected)
 * @property {() => void} redraw
 * @property {(text: string) => void} say a message in the footer
 * @property {(question: string) => Promise<boolean>} confirm
 * @property {() => number} pageHeight rows inside the full-screen page
 * @property {import('./render.js').Style} style
 *
 * @typedef {object} MonitView
 * @property {string} name its keymap scope and its name in the code
 * @property {string} title its heading in the help and the page's label
 * @property {string[]} openKeys keys of the app list that open it
 * @property {string} openHelp the help line of those keys
 * @property {string} [hint] its entry in the list's footer ('l logs')
 * @property {import('./keys.js').Binding[]} keys its own keys (Esc and q are global)
 * @property {Record<string, () => void | Promise<void>>} actions the handlers of its keys
 * @property {(width: number, height: number) => string} render the page's text, blessed tags
 * @property {() => void | Promise<void>} [open] on opening (fetch what it shows)
 * @property {() => string} [label] the page's label now (default: title)
 * @property {() => void} [close] on leaving it (drop what it keeps, stop its timers)
 * @property {() => boolean} [typing] whether it takes every key now (a search being typed)
 * @property {(key: string, ch: string | undefined) => void} [type] a key while typing (keys.js's name)
 * @property {(entry: import('../../ipc/events.js').LogEvent) => void} [onLog] a log line from the stream, while it is shown
 * @property {(event: import('../../ipc/events.js').SupEvent) => void} [onEvent] an event from the stream, while it is shown
 */

/**
 * Put a view's keys in the keymap and its handlers in the action table.
 * @param {import('./keys.js').Keymap} keymap
 * @param {Record<string, () => void | Promise<void>>} handlers
 * @param {MonitView} view
 * @param {(view: MonitView) => void} open what the open key does
 */
export function installView (keymap, handlers, view, open) {
  keymap.addScope(view.name, view.title, view.keys)
  const action = `${view.name}.open`
  keymap.add('list', [{ keys: view.openKeys, action, help: view.openHelp, ...(view.hint ? { hint: view.hint } : {}) }])
  for (const [name, handler] of Object.entries({ ...view.actions, [action]: () => open(view) })) {
    if (name in handlers) throw new Error(`monit: action ${name} is defined twice`)
    handlers[name] = handler
  }
}
