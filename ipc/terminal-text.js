// @ts-check
// Text from apps and configs (log lines, names, paths, env, messages) on its way to a
// terminal: control characters are shown, never obeyed, so an app cannot set the window
// title, clear the screen or write the clipboard (OSC 52) of whoever reads its logs
// (design §12). Dependency-free: the CLI, monit and the error registry share it.

// C0 but tab, DEL, and C1 (U+0080-U+009F: U+009B is a one-character CSI for many terminals).
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/g
// eslint-disable-next-line no-control-regex
const HAS_CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f-\u009f]/

/**
 * C escapes as systemd writes them (`\n`, `\r`, else `\xHH`): ASCII only, one line, and what
 * `printf` needs to make the same bytes again. A backslash in the text is left as it is,
 * so ordinary lines (JSON, Windows paths) read unchanged; `sup logs --raw` gives the bytes.
 * @param {string} text
 */
export function escapeControls (text) {
  // Most text has none: tested first, it is returned as it is, with nothing allocated.
  if (!HAS_CONTROL.test(text)) return text
  return text.replace(CONTROLS, (c) => c === '\n' ? '\\n' : c === '\r' ? '\\r' : `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`)
}

/**
 * A copy of a daemon's answer with every string in it (keys too) escaped: the lines for people
 * are built from this, so colour codes sup adds afterwards are the only ones left.
 * @template T
 * @param {T} value
 * @returns {T}
 */
export function escapeDeep (value) {
  if (typeof value === 'string') return /** @type {T} */ (escapeControls(value))
  if (Array.isArray(value)) return /** @type {T} */ (value.map(escapeDeep))
  if (value === null || typeof value !== 'object') return value
  // A loop, not fromEntries(entries().map()): `sup ls` escapes every row this way.
  /** @type {Record<string, unknown>} */
  const copy = {}
  for (const key of Object.keys(value)) {
    const v = escapeDeep(/** @type {Record<string, unknown>} */ (value)[key])
    // "__proto__" (an env key in someone's config) stays a key, as fromEntries would keep it.
    if (key === '__proto__') Object.defineProperty(copy, key, { value: v, enumerable: true, writable: true, configurable: true })
    else copy[escapeControls(key)] = v
  }
  return /** @type {T} */ (copy)
}

/**
 * JSON for a terminal or a pipe: JSON.stringify escapes C0 already; DEL and C1 are written as
 * \u escapes too (the same JSON to a parser, and no CSI for a terminal).
 * @param {unknown} value
 * @param {number} [space]
 */
export function stringifyForTerminal (value, space) {
  return JSON.stringify(value, null, space).replace(/[\u007f-\u009f]/g, (c) => `\\u00${c.charCodeAt(0).toString(16)}`)
}
