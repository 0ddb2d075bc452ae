// @ts-check
// How many terminal columns text takes, for wrapping an app's log lines: CJK, Hangul, full-width
// forms and emoji take two, combining marks and zero-width characters none, and a character is
// never cut in half (a surrogate pair split at a row's end shows as two broken characters).
// The common ranges of Unicode's East Asian Width, not all of them: a rare character measured
// one column too narrow costs a clipped column, not a broken screen.

/** [from, to] code points, sorted. */
const WIDE = [
  [0x1100, 0x115f], [0x231a, 0x231b], [0x2329, 0x232a], [0x23e9, 0x23ec], [0x23f0, 0x23f3], [0x25fd, 0x25fe],
  [0x2614, 0x2615], [0x2648, 0x2653], [0x26a1, 0x26a1], [0x26bd, 0x26be], [0x26c4, 0x26c5], [0x26d4, 0x26d4],
  [0x26ea, 0x26ea], [0x26f2, 0x26f5], [0x26fa, 0x26fd], [0x2705, 0x2705], [0x270a, 0x270b], [0x2728, 0x2728],
  [0x274c, 0x274e], [0x2753, 0x2757], [0x2795, 0x2797], [0x27b0, 0x27bf], [0x2b1b, 0x2b1c], [0x2b50, 0x2b55],
  [0x2e80, 0x303e], [0x3041, 0x33ff], [0x3400, 0x4dbf], [0x4e00, 0x9fff], [0xa000, 0xa4cf], [0xa960, 0xa97f],
  [0xac00, 0xd7a3], [0xf900, 0xfaff], [0xfe10, 0xfe19], [0xfe30, 0xfe6f], [0xff00, 0xff60], [0xffe0, 0xffe6],
  [0x1f004, 0x1f004], [0x1f0cf, 0x1f0cf], [0x1f18e, 0x1f18e], [0x1f191, 0x1f19a], [0x1f200, 0x1f251],
  [0x1f300, 0x1f64f], [0x1f680, 0x1f6ff], [0x1f7e0, 0x1f7eb], [0x1f900, 0x1f9ff], [0x1fa70, 0x1faff], [0x20000, 0x3fffd]
]
const ZERO = [[0x0300, 0x036f], [0x0483, 0x0489], [0x0591, 0x05bd], [0x0610, 0x061a], [0x064b, 0x065f], [0x1ab0, 0x1aff],
  [0x1dc0, 0x1dff], [0x200b, 0x200f], [0x202a, 0x202e], [0x2060, 0x2064], [0x20d0, 0x20ff], [0xfe00, 0xfe0f],
  [0xfe20, 0xfe2f], [0xfeff, 0xfeff], [0xe0100, 0xe01ef]]

/** @param {number} cp @param {number[][]} ranges */
function within (cp, ranges) {
  let lo = 0
  let hi = ranges.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >> 1
    if (cp < ranges[mid][0]) hi = mid - 1
    else if (cp > ranges[mid][1]) lo = mid + 1
    else return true
  }
  return false
}

/** Columns one code point takes. @param {number} cp */
export function charWidth (cp) {
  if (cp < 0x300) return 1
  if (within(cp, ZERO)) return 0
  return within(cp, WIDE) ? 2 : 1
}

/** Whether every character takes one column, so indexes are columns (most log lines). @param {string} text */
export function isNarrow (text) {
  // eslint-disable-next-line no-control-regex
  return /^[\u0000-\u02ff]*$/.test(text)
}

/** Columns `text` takes. @param {string} text */
export function textWidth (text) {
  if (isNarrow(text)) return text.length
  let width = 0
  for (const c of text) width += charWidth(/** @type {number} */ (c.codePointAt(0)))
  return width
}

/**
 * Where each row starts when `text` is wrapped at `first` columns, then `rest` (indexes into
 * the string, the first 0); a character wider than a whole row still gets one.
 * @param {string} text
 * @param {number} first
 * @param {number} rest
 * @returns {number[]}
 */
export function rowStarts (text, first, rest) {
  if (isNarrow(text)) {
    const starts = [0]
    for (let at = first; at < text.length; at += rest) starts.push(at)
    return starts
  }
  const starts = [0]
  let room = first
  let used = 0
  let index = 0
  for (const c of text) {
    const w = charWidth(/** @type {number} */ (c.codePointAt(0)))
    if (used + w > room && used > 0) {
      starts.push(index)
      room = rest
      used = 0
    }
    used += w
    index += c.length
  }
  return starts
}

/**
 * The index where column `column` begins (for scrolling sideways), or the text's length.
 * @param {string} text
 * @param {number} column
 */
export function indexAtColumn (text, column) {
  if (isNarrow(text)) return Math.min(column, text.length)
  let used = 0
  let index = 0
  for (const c of text) {
    if (used >= column) return index
    used += charWidth(/** @type {number} */ (c.codePointAt(0)))
    index += c.length
  }
  return text.length
}
