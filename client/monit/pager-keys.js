// @ts-check
// The keys of a pager (monit's log and events views), as `less` and k9s's log view have
// them: one table, turned into a view's bindings for monit's keymap (monit/keys.js) and
// the handlers they run. Key names are keys.js's: printable characters as themselves,
// other keys by name ('pageup', 'space'), Ctrl chords as 'C-b'. Esc and q are global.
import { escapeControls } from '../../ipc/terminal-text.js'

/**
 * @typedef {import('./pager.js').Pager<any>} AnyPager
 * @typedef {'up' | 'down' | 'pageUp' | 'pageDown' | 'home' | 'end' | 'follow' | 'wrap' | 'left' | 'right' | 'search' | 'next' | 'previous'} PagerAction
 */

/** @type {Array<{ keys: string[], action: PagerAction, help: string, hint?: string }>} */
export const PAGER_KEYS = [
  { keys: ['k', 'up'], action: 'up', help: 'one line up (older)' },
  { keys: ['j', 'down'], action: 'down', help: 'one line down (newer)' },
  { keys: ['pageup', 'b', 'C-b'], action: 'pageUp', help: 'a page up (older lines)' },
  { keys: ['pagedown', 'space', 'C-f'], action: 'pageDown', help: 'a page down' },
  { keys: ['g', 'home'], action: 'home', help: 'the oldest line kept' },
  { keys: ['G', 'end'], action: 'end', hint: 'G end', help: 'the newest line, and follow from there' },
  { keys: ['f'], action: 'follow', hint: 'f follow', help: 'follow new lines on/off (a paused view stays put)' },
  { keys: ['w'], action: 'wrap', hint: 'w wrap', help: 'wrap long lines on/off' },
  { keys: ['left'], action: 'left', help: 'scroll left (wrap off)' },
  { keys: ['right'], action: 'right', help: 'scroll right (wrap off)' },
  { keys: ['/'], action: 'search', hint: '/ search', help: 'search: type, Enter finds (Esc cancels, empty clears)' },
  { keys: ['n'], action: 'next', hint: 'n/N next', help: 'next match (newer), round to the first' },
  { keys: ['N'], action: 'previous', help: 'previous match (older)' }
]

/**
 * A view's bindings for the pager keys: actions named `<scope>.<action>`.
 * @param {string} scope
 * @returns {Array<{ keys: string[], action: string, help: string, hint?: string }>} bindings of monit/keys.js
 */
export function pagerBindings (scope) {
  return PAGER_KEYS.map(({ keys, action, help, hint }) => ({ keys, action: `${scope}.${action}`, help, ...(hint ? { hint } : {}) }))
}

/**
 * The handlers of those bindings, acting on the view's pager of the moment.
 * @param {string} scope
 * @param {() => AnyPager | null} pagerOf
 * @returns {Record<string, () => void>}
 */
export function pagerActions (scope, pagerOf) {
  /** @type {Record<PagerAction, (pager: AnyPager) => void>} */
  const acts = {
    up: (p) => p.scroll(-1),
    down: (p) => p.scroll(1),
    pageUp: (p) => p.page(-1),
    pageDown: (p) => p.page(1),
    home: (p) => p.home(),
    end: (p) => p.end(),
    follow: (p) => p.toggleFollow(),
    wrap: (p) => p.toggleWrap(),
    left: (p) => p.shift(-Math.max(1, Math.floor(p.width / 2))),
    right: (p) => p.shift(Math.max(1, Math.floor(p.width / 2))),
    search: (p) => { p.input = '' },
    next: (p) => p.nextMatch(1),
    previous: (p) => p.nextMatch(-1)
  }
  return Object.fromEntries(Object.entries(acts).map(([action, act]) => [`${scope}.${action}`, () => {
    const pager = pagerOf()
    if (pager) act(pager)
  }]))
}

/**
 * A key while a search is typed (every key comes here then, so `q` is a letter): Enter
 * searches (an empty search clears it), Esc cancels, Backspace and Ctrl-U edit, printable
 * characters are typed.
 * @param {AnyPager} pager
 * @param {string} key keys.js's name of the key
 * @param {string | undefined} ch
 */
export function typeSearch (pager, key, ch) {
  const input = pager.input ?? ''
  if (key === 'enter' || key === 'return') {
    pager.input = null
    pager.search(input)
  } else if (key === 'escape') {
    pager.input = null
  } else if (key === 'backspace') {
    pager.input = input.slice(0, -1)
  } else if (key === 'C-u') {
    pager.input = ''
  } else if (key === 'space') {
    pager.input = (input + ' ').slice(0, 200)
  } else if (ch && key === ch && escapeControls(ch) === ch) {
    // Bounded: a paste of a whole file is not a search.
    pager.input = (input + ch).slice(0, 200)
  }
}
