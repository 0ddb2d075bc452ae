// @ts-check
// A scrolling window over a bounded list of lines, as `less` is over a file: monit's
// full-screen log and events views are each one of these. Pure: the lines come in, the keys
// move a position, and rows() says what a screen of a given size shows. Memory is bounded
// by a ring of `capacity` items and `maxChars` characters, whichever is reached first.
import { indexAtColumn, isNarrow, rowStarts, textWidth } from './columns.js'

/**
 * @template T
 * @typedef {{ seq: number, item: T, text: string, narrow: boolean }} Entry an item with its searchable text;
 *   narrow: every character one column wide (string indexes are columns)
 */

/**
 * @typedef {{ text: string, color: string | null }} Prefix what goes before an item's text
 * @typedef {{ seq: number, row: number }} Position an item and a row of its wrapped text
 * @typedef {{ seq: number, row: number, prefix: Prefix | null, indent: number, start: number, end: number, ranges: Array<[number, number]> }} Row
 *   one screen row (the `row`th of its item): [start, end) of the item's text, after its prefix (first row) or `indent` spaces; ranges: matches in it
 */

/** Spaces a tab stands for (to the next multiple, counted from the text's start). */
const TAB = 8
/** Below this many columns for the text, wrapped rows do not indent under the prefix. */
const MIN_INDENTED = 16

/**
 * What the text of a line from an app looks like on a screen: control characters escaped
 * by `escape`, tabs expanded (their width depends on the column, which a terminal decides).
 * @param {string} text
 * @param {(text: string) => string} escape
 */
export function displayText (text, escape) {
  const escaped = escape(text)
  if (!escaped.includes('\t')) return escaped
  let out = ''
  for (const c of escaped) out += c === '\t' ? ' '.repeat(TAB - (out.length % TAB)) : c
  return out
}

/**
 * Where `query` occurs in `text`: case-insensitive unless the query has a capital (smartcase,
 * as vim and less -i).
 * @param {string} text
 * @param {string} query
 * @returns {Array<[number, number]>}
 */
export function findAll (text, query) {
  if (query === '') return []
  const sensitive = query !== query.toLowerCase()
  const hay = sensitive ? text : text.toLowerCase()
  const needle = sensitive ? query : query.toLowerCase()
  /** @type {Array<[number, number]>} */
  const out = []
  for (let i = hay.indexOf(needle); i !== -1; i = hay.indexOf(needle, i + needle.length)) out.push([i, i + needle.length])
  return out
}

/** @template T */
export class Pager {
  /**
   * @param {{ capacity: number, maxChars?: number, textOf: (item: T) => string, prefixOf: (item: T) => Prefix }} options
   *   textOf: the searchable text, already escaped for a terminal (called once per item)
   */
  constructor ({ capacity, maxChars = Infinity, textOf, prefixOf }) {
    this.capacity = capacity
    this.maxChars = maxChars
    this.textOf = textOf
    this.prefixOf = prefixOf
    /** @type {Array<Entry<T> | undefined>} */
    this.ring = new Array(capacity)
    /** Seq of the oldest item kept, and of the next item to come. */
    this.first = 0
    this.next = 0
    this.chars = 0
    /** Following: the view stays on the newest lines as they come. */
    this.follow = true
    this.wrap = true
    /** Columns the text is shifted left by when not wrapping. */
    this.left = 0
    /** @type {Position} the first row shown, when not following */
    this.top = { seq: 0, row: 0 }
    this.width = 80
    this.height = 20
    /** The search: its text, the seqs of the items it matches (oldest first) and the one jumped to. */
    this.query = ''
    /** @type {number[]} */
    this.matches = []
    /** @type {number | null} */
    this.current = null
    /** What is being typed after `/`, or null when not typing. @type {string | null} */
    this.input = null
  }

  get size () { return this.next - this.first }

  /** @param {number} seq @returns {Entry<T>} */
  entry (seq) { return /** @type {Entry<T>} */ (this.ring[seq % this.capacity]) }

  /** @param {T} item */
  push (item) {
    if (this.size === this.capacity) this.dropOldest()
    const text = this.textOf(item)
    const seq = this.next++
    this.ring[seq % this.capacity] = { seq, item, text, narrow: isNarrow(text) }
    this.chars += text.length
    while (this.chars > this.maxChars && this.size > 1) this.dropOldest()
    if (this.query !== '' && findAll(text, this.query).length > 0) this.matches.push(seq)
  }

  dropOldest () {
    const seq = this.first++
    this.chars -= this.entry(seq).text.length
    this.ring[seq % this.capacity] = undefined
    if (this.matches[0] === seq) this.matches.shift()
    if (this.current === seq) this.current = this.matches[0] ?? null
    if (this.top.seq < this.first) this.top = { seq: this.first, row: 0 }
  }

  /** Replace every item (a history fetched again), keeping the search. @param {T[]} items oldest first */
  reset (items) {
    while (this.size > 0) this.dropOldest()
    this.first = this.next
    this.top = { seq: this.next, row: 0 }
    for (const item of items) this.push(item)
    if (this.query !== '') this.search(this.query)
  }

  /** @returns {T[]} oldest first */
  items () {
    const out = []
    for (let s = this.first; s < this.next; s++) out.push(this.entry(s).item)
    return out
  }

  /** @param {number} width @param {number} height rows for the text */
  resize (width, height) {
    this.width = Math.max(1, width)
    this.height = Math.max(1, height)
  }

  /** @param {number} seq */
  prefix (seq) { return this.prefixOf(this.entry(seq).item) }

  /** Columns of text on each row of an item, and the indent of its wrapped rows. @param {number} seq */
  columns (seq) {
    const width = textWidth(this.prefix(seq).text)
    const text = this.width - width
    return text >= MIN_INDENTED ? { first: text, rest: text, indent: width } : { first: Math.max(1, text), rest: this.width, indent: 0 }
  }

  /** Rows the item takes. @param {number} seq */
  rowsOf (seq) {
    if (!this.wrap) return 1
    const { first, rest } = this.columns(seq)
    const { text, narrow } = this.entry(seq)
    if (!narrow) return rowStarts(text, first, rest).length
    return text.length <= first ? 1 : 1 + Math.ceil((text.length - first) / rest)
  }

  /** The first row of the last screenful. @returns {Position} */
  endTop () {
    let left = this.height
    for (let s = this.next - 1; s >= this.first; s--) {
      const rows = this.rowsOf(s)
      if (rows >= left) return { seq: s, row: rows - left }
      left -= rows
    }
    return { seq: this.first, row: 0 }
  }

  /** The position the screen starts at now. @returns {Position} */
  topNow () {
    if (this.follow) return this.endTop()
    const end = this.endTop()
    // Never past the last screenful (after a resize or a toggle of wrap).
    const { seq, row } = this.top
    if (seq > end.seq || (seq === end.seq && row > end.row)) return end
    return { seq, row: Math.min(row, this.rowsOf(seq) - 1) }
  }

  /** Scroll by `delta` rows (negative: towards older lines); stops following. @param {number} delta */
  scroll (delta) {
    let { seq, row } = this.topNow()
    this.follow = false
    if (this.size === 0) return
    row += delta
    while (row < 0 && seq > this.first) row += this.rowsOf(--seq)
    while (row > 0 && row >= this.rowsOf(seq) && seq < this.next - 1) row -= this.rowsOf(seq++)
    this.top = { seq, row: Math.max(0, row) }
    this.top = this.topNow()
  }

  /** @param {number} pages */
  page (pages) { this.scroll(pages * Math.max(1, this.height - 1)) }

  home () {
    this.follow = false
    this.top = { seq: this.first, row: 0 }
  }

  /** The end, following from there (as `tail -f`). */
  end () { this.follow = true }

  toggleFollow () {
    if (this.follow) {
      this.top = this.topNow()
      this.follow = false
    } else {
      this.follow = true
    }
  }

  toggleWrap () {
    const top = this.topNow()
    this.wrap = !this.wrap
    this.left = 0
    this.top = { seq: top.seq, row: 0 }
  }

  /** Shift the text sideways when not wrapping. @param {number} delta columns */
  shift (delta) {
    if (this.wrap) return
    this.left = Math.max(0, this.left + delta)
  }

  /** Lines after the last one shown: how far behind a paused view is. */
  below () {
    const rows = this.rows()
    return rows.length === 0 ? 0 : this.next - 1 - rows[rows.length - 1].seq
  }

  /**
   * Search for `query` and jump to the match nearest the screen: the first one on it, else
   * the newest above it (a log is read from its end: the latest error, not the oldest), else
   * the first below.
   * @param {string} query
   */
  search (query) {
    const shown = this.rows()
    this.query = query
    this.matches = []
    this.current = null
    if (query === '') return
    for (let s = this.first; s < this.next; s++) if (findAll(this.entry(s).text, query).length > 0) this.matches.push(s)
    const top = shown[0]?.seq ?? this.first
    const bottom = shown[shown.length - 1]?.seq ?? top
    const visible = this.matches.find((s) => s >= top && s <= bottom)
    const above = [...this.matches].reverse().find((s) => s < top)
    this.jumpTo(visible ?? above ?? this.matches[0] ?? null)
  }

  /** The next match (n), or the one before (N), wrapping around. @param {1 | -1} direction */
  nextMatch (direction) {
    if (this.matches.length === 0) return
    const at = this.current ?? this.topNow().seq
    const found = direction > 0 ? this.matches.find((s) => s > at) ?? this.matches[0] : [...this.matches].reverse().find((s) => s < at) ?? this.matches[this.matches.length - 1]
    this.jumpTo(found)
  }

  /** Which match is current, counted from 1, and how many there are. */
  matchIndex () {
    return { index: this.current === null ? 0 : this.matches.indexOf(this.current) + 1, count: this.matches.length }
  }

  /** Make `seq` the current match and bring it into view, a few rows below the top. @param {number | null} seq */
  jumpTo (seq) {
    this.current = seq
    if (seq === null) return
    const visible = this.rows().some((r) => r.seq === seq && r.row === 0)
    this.top = this.topNow()
    this.follow = false
    if (visible) return
    this.top = { seq, row: 0 }
    this.scroll(-Math.min(3, Math.floor(this.height / 4)))
  }

  /** What the screen shows, top to bottom (at most `height` rows). @returns {Row[]} */
  rows () {
    if (this.size === 0) return []
    const top = this.topNow()
    /** @type {Row[]} */
    const out = []
    for (let s = top.seq; s < this.next && out.length < this.height; s++) {
      const { text } = this.entry(s)
      const ranges = this.query !== '' ? findAll(text, this.query) : []
      const cols = this.columns(s)
      const prefix = this.prefix(s)
      if (!this.wrap) {
        out.push({ seq: s, row: 0, prefix, indent: 0, start: indexAtColumn(text, this.left), end: indexAtColumn(text, this.left + cols.first), ranges })
        continue
      }
      const starts = rowStarts(text, cols.first, cols.rest)
      for (let r = s === top.seq ? top.row : 0; r < starts.length && out.length < this.height; r++) {
        const start = starts[r]
        const end = starts[r + 1] ?? text.length
        out.push({ seq: s, row: r, prefix: r === 0 ? prefix : null, indent: r === 0 ? 0 : cols.indent, start, end, ranges })
      }
    }
    return out
  }
}
