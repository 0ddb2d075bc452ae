// @ts-check
// Every key of `sup monit` in one table: key → action name + a line of help. The `?` overlay
// is drawn from it, the dispatcher reads it, tests check it; nothing else binds a key.
//
// Scopes: `global` keys work everywhere; every screen (the app list, the detail view, a log
// view...) has its own scope, looked up first, so a screen may give a key another meaning.
//
// Adding a view with its keys: client/monit/views.js (a view brings its scope, the list keys
// that open it, and its handlers; docs/monitoring.md, "Adding a view"). More keys in a scope:
//   keymap.add('list', [{ keys: ['l'], action: 'logs.open', help: 'full-screen logs' }])
// with a handler of that action name. A key bound twice in one scope throws at start (a unit
// test builds the whole map), so two modules cannot silently fight over a key. A key not
// bound anywhere but listed in MOVED tells the user where its old meaning went.

/**
 * @typedef {object} Binding
 * @property {string[]} keys key names as keyName() spells them: 'j', 'G', '?', '+', 'up',
 *   'enter', 'escape', 'pageup', 'tab', 'C-d' (ctrl), 'f1'
 * @property {string} action the name of the handler the key runs
 * @property {string} help one line for the help overlay
 * @property {string} [was] what the key did before today's map (shown in the help)
 * @property {string} [hint] its entry in the footer's short key list ('r restart')
 * @typedef {{ name: string, title: string, bindings: Binding[] }} Scope
 */

export const GLOBAL = 'global'

/** Shown in the help, for keys whose meaning moved (k9s / htop habits won). */
export const MOVED = /** @type {const} */ ({
  s: 'used to stop; now x (s is scale/shell in k9s)',
  l: 'used to reload; now C-r (l opens logs, as in k9s)'
})

/** @type {Binding[]} */
const GLOBAL_KEYS = [
  { keys: ['?', 'h', 'f1'], action: 'help', hint: '? help', help: 'this help' },
  { keys: ['q', 'C-c'], action: 'quit', hint: 'q quit', help: 'quit at once' },
  { keys: ['escape'], action: 'back', help: 'close, clear the filter, or back to the list' },
  { keys: ['tab'], action: 'view.next', help: 'next view' },
  { keys: ['m'], action: 'mouse', help: 'mouse on/off (off: the terminal selects text)' }
]

/** @type {Binding[]} */
const LIST_KEYS = [
  { keys: ['j', 'down'], action: 'down', help: 'select the next line' },
  { keys: ['k', 'up'], action: 'up', help: 'select the line above' },
  { keys: ['pagedown', 'C-f'], action: 'page.down', help: 'a page down' },
  { keys: ['pageup', 'C-b'], action: 'page.up', help: 'a page up' },
  { keys: ['g', 'home'], action: 'top', help: 'first line' },
  { keys: ['G', 'end'], action: 'bottom', help: 'last line' },
  { keys: ['enter', 'right', 'left', 'space'], action: 'expand', help: 'show/hide the workers of an app' },
  { keys: ['/'], action: 'filter', hint: '/ filter', help: 'filter by name, namespace or status (Enter keeps, Esc clears)' },
  { keys: ['P'], action: 'sort.cpu', hint: 'P/M/R/T/N sort', help: 'sort by cpu (again: reverse)' },
  { keys: ['M'], action: 'sort.memory', help: 'sort by memory (again: reverse)' },
  { keys: ['R'], action: 'sort.restarts', help: 'sort by restarts (again: reverse)' },
  { keys: ['T'], action: 'sort.uptime', help: 'sort by uptime (again: reverse)' },
  { keys: ['N'], action: 'sort.name', help: 'sort by name (again: reverse)' },
  { keys: ['r'], action: 'restart', hint: 'r restart', help: 'restart (confirm)' },
  { keys: ['C-r'], action: 'reload', help: 'reload, zero-downtime (confirm)', was: 'l' },
  { keys: ['x'], action: 'stop', hint: 'x stop', help: 'stop (confirm)', was: 's' },
  { keys: ['u'], action: 'start', help: 'start a stopped app' },
  { keys: ['C-d'], action: 'delete', help: 'delete the app (confirm)' },
  { keys: ['+'], action: 'scale.up', hint: '+/- scale', help: 'one worker more (confirm)' },
  { keys: ['-'], action: 'scale.down', help: 'one worker fewer (confirm)' },
  { keys: ['c'], action: 'flush', help: 'flush (empty) the app\'s log files (confirm)' }
]

/** @type {Binding[]} */
const HELP_KEYS = [
  { keys: ['j', 'down', 'pagedown', 'space'], action: 'help.down', help: 'scroll the help down (any other key closes it)' },
  { keys: ['k', 'up', 'pageup'], action: 'help.up', help: 'scroll the help up' }
]

/**
 * The canonical name of a key press from blessed's (ch, key): ctrl/meta chords as 'C-x'/'M-x',
 * printable characters as themselves ('G', '?', '+'), other keys by name ('enter', 'pageup').
 * @param {string | undefined} ch
 * @param {{ name?: string, full?: string, ctrl?: boolean, meta?: boolean } | undefined} key
 */
export function keyName (ch, key) {
  if (key?.ctrl || key?.meta) return key.full ?? ''
  if (typeof ch === 'string' && ch.length === 1 && ch > ' ' && ch !== '\x7f') return ch
  return key?.name ?? ch ?? ''
}

/** How a key is written in the help: 'C-d' as 'Ctrl-d', names as they are. @param {string} key */
export function showKey (key) {
  if (key.startsWith('C-')) return `Ctrl-${key.slice(2)}`
  if (key.startsWith('M-')) return `Alt-${key.slice(2)}`
  return { escape: 'Esc', enter: 'Enter', pagedown: 'PgDn', pageup: 'PgUp', home: 'Home', end: 'End', tab: 'Tab', space: 'Space', up: '↑', down: '↓', left: '←', right: '→', f1: 'F1' }[key] ?? key
}

export class Keymap {
  constructor () {
    /** @type {Map<string, Scope>} in the order added (the help's order) */
    this.scopes = new Map()
    /** @type {Map<string, Map<string, Binding>>} scope → key → binding */
    this.index = new Map()
  }

  /**
   * A new screen's keys. @param {string} name @param {string} title @param {Binding[]} bindings
   */
  addScope (name, title, bindings) {
    if (this.scopes.has(name)) throw new Error(`monit keymap: scope ${name} is already defined`)
    this.scopes.set(name, { name, title, bindings: [] })
    this.index.set(name, new Map())
    this.add(name, bindings)
    return this
  }

  /**
   * More keys in an existing scope. @param {string} scope @param {Binding[]} bindings
   */
  add (scope, bindings) {
    const entry = this.scopes.get(scope)
    const index = this.index.get(scope)
    if (!entry || !index) throw new Error(`monit keymap: no scope ${scope}`)
    for (const binding of bindings) {
      for (const key of binding.keys) {
        const taken = index.get(key)
        if (taken) throw new Error(`monit keymap: ${key} is bound twice in ${scope} (${taken.action}, ${binding.action})`)
        index.set(key, binding)
      }
      entry.bindings.push(binding)
    }
    return this
  }

  /**
   * The binding of a key in a screen: the screen's own first, then the global one.
   * @param {string} scope
   * @param {string} key as keyName() gives it
   * @returns {Binding | undefined}
   */
  lookup (scope, key) {
    return this.index.get(scope)?.get(key) ?? this.index.get(GLOBAL)?.get(key)
  }

  /**
   * The footer's short key list of a screen: its own hints, after the global ones.
   * @param {string} scope
   * @returns {string[]}
   */
  hints (scope) {
    const of = (/** @type {string} */ name) => (this.scopes.get(name)?.bindings ?? []).flatMap((b) => b.hint ? [b.hint] : [])
    return [...of(GLOBAL), ...of(scope)]
  }

  /**
   * The help overlay's lines: a heading per scope, a line per binding (its text wrapped at
   * words to `width`), then the keys that changed. Plain text.
   * @param {boolean} [unicode]
   * @param {number} [width]
   * @returns {string[]}
   */
  helpLines (unicode = true, width = Infinity) {
    const ascii = (/** @type {string} */ k) => unicode ? k : k.replace('↑', 'Up').replace('↓', 'Down').replace('←', 'Left').replace('→', 'Right')
    /** @type {Array<{ heading: string } | { keys: string, help: string }>} */
    const rows = []
    for (const scope of this.scopes.values()) {
      rows.push({ heading: scope.title })
      for (const b of scope.bindings) rows.push({ keys: b.keys.map((k) => ascii(showKey(k))).join(' '), help: b.help + (b.was ? ` (was ${b.was})` : '') })
    }
    rows.push({ heading: 'changed from earlier versions' })
    for (const [key, why] of Object.entries(MOVED)) rows.push({ keys: key, help: why })
    const keyWidth = Math.max(...rows.map((r) => 'keys' in r ? r.keys.length : 0))
    const indent = 2 + keyWidth + 2
    return rows.flatMap((r) => {
      if (!('keys' in r)) return [r.heading]
      const [first, ...more] = wrapWords(r.help, Math.max(10, width - indent))
      return [`  ${r.keys.padEnd(keyWidth)}  ${first}`, ...more.map((l) => ' '.repeat(indent) + l)]
    })
  }
}

/**
 * @param {string} text
 * @param {number} width
 * @returns {string[]}
 */
function wrapWords (text, width) {
  const lines = ['']
  for (const word of text.split(' ')) {
    const last = lines[lines.length - 1]
    if (last && last.length + 1 + word.length > width) lines.push(word)
    else lines[lines.length - 1] = last ? `${last} ${word}` : word
  }
  return lines
}

/** The keymap monit starts with: global keys, the app list, the help; views add theirs (monit/views.js). */
export function createKeymap () {
  return new Keymap()
    .addScope(GLOBAL, 'everywhere', GLOBAL_KEYS)
    .addScope('list', 'app list', LIST_KEYS)
    .addScope('help', 'this help', HELP_KEYS)
}
