// @ts-check
// The blessed screen of `sup monit`: the list screen (apps, figures, logs), a full-screen page
// for the other views (detail, and those registered by monit/views.js), the help overlay, a
// confirm prompt and the footer, laid out for the terminal's size and redrawn from the model.
// Only this module and the monit command touch blessed; the command imports it lazily.
import { SORTS } from './model.js'
import { listWidthFor, renderFigures, renderFooter, renderLine, renderListHeader, renderLogs, escapeTags } from './render.js'

/** Below this width the right-hand panes go under the list instead of beside it (80 columns
 * side by side left both too narrow: names cut at 9 characters, charts 30 wide). */
const SIDE_BY_SIDE_MIN = 100

/**
 * @typedef {object} DrawState
 * @property {string} status the footer's message (or why the daemon cannot be reached)
 * @property {boolean} connected
 * @property {string} screen 'list', or the view shown full-screen
 * @property {string[]} hints the footer's key list
 * @property {string} [header] the first line (host totals, sort, filter)
 * @property {((width: number, height: number) => string) | null} [page] the full-screen view's text
 * @property {string | null} [pageTitle]
 * @property {{ lines: string[], offset: number } | null} [help]
 */

/**
 * @param {any} blessed the blessed module
 * @param {{ color: boolean, title: string, input?: NodeJS.ReadStream, output?: NodeJS.WriteStream }} options
 */
export function createView (blessed, { color, title, input, output }) {
  const screen = blessed.screen({ smartCSR: true, title, fullUnicode: true, autoPadding: false, input, output, warnings: false })
  // Box lines as UTF-8 rather than the terminal's line-drawing charset: the same on every
  // terminal that shows UTF-8, and readable in a text capture.
  if (screen.tput) screen.tput.brokenACS = true
  const unicode = Boolean(screen.tput?.unicode || screen.tput?.numbers?.U8 === 1)
  // A terminal of fewer than 8 colours (vt100, TERM=dumb-ish) is drawn as NO_COLOR draws it.
  const colors = Number(screen.tput?.colors ?? 8)
  const style = { color: color && colors >= 8, unicode }
  color = style.color
  const border = { type: 'line' }
  // Borders in the terminal's own colour: grey becomes black (30) on an 8-colour terminal
  // (tmux's default TERM=screen), which vanishes on a dark background.
  const boxStyle = color ? { label: { bold: true } } : {}
  const header = blessed.box({ parent: screen, height: 1, top: 0, left: 0, width: '100%', tags: true })
  const list = blessed.box({ parent: screen, label: ' apps ', border, tags: true, wrap: false, style: boxStyle })
  const figures = blessed.box({ parent: screen, label: ' figures ', border, tags: true, wrap: false, style: boxStyle })
  const logs = blessed.box({ parent: screen, label: ' logs ', border, tags: true, wrap: false, style: boxStyle })
  const page = blessed.box({ parent: screen, hidden: true, border, tags: true, wrap: false, style: boxStyle })
  const help = blessed.box({ parent: screen, hidden: true, label: ' keys ', border, tags: true, wrap: false, style: boxStyle })
  const footer = blessed.box({ parent: screen, height: 1, bottom: 0, left: 0, width: '100%', tags: true })
  const prompt = blessed.box({ parent: screen, hidden: true, top: 'center', left: 'center', width: 50, height: 5, border, tags: true, style: color ? { border: { fg: 'yellow' } } : {} })

  /** @param {number} longest the longest name cell wanted */
  function layout (longest) {
    const width = screen.width
    const height = screen.height - 2
    const side = width >= SIDE_BY_SIDE_MIN
    // As wide as the names need (up to 40), at most half the screen: the charts get the rest.
    const listWidth = side ? Math.min(Math.floor(width * 0.5), listWidthFor(longest + 6) + 2) : width
    const listHeight = side ? height : Math.max(6, Math.floor(height * 0.4))
    Object.assign(list.position, { top: 1, left: 0, width: listWidth, height: listHeight })
    const right = { left: side ? listWidth : 0, width: side ? width - listWidth : width }
    const top = side ? 0 : listHeight
    const rest = height - top
    const figuresHeight = Math.min(rest - 3, Math.max(8, Math.floor(rest * 0.5)))
    Object.assign(figures.position, { top: 1 + top, height: figuresHeight, ...right })
    Object.assign(logs.position, { top: 1 + top + figuresHeight, height: rest - figuresHeight, ...right })
    Object.assign(page.position, { top: 1, left: 0, width, height })
    Object.assign(help.position, { top: 1, left: Math.max(0, Math.floor((width - Math.min(width, 100)) / 2)), width: Math.min(width, 100), height })
    prompt.width = Math.min(60, width - 4)
  }

  /** @param {any} box */
  const inner = (box) => ({ width: Math.max(1, box.width - 2), height: Math.max(1, box.height - 2) })

  /**
   * @param {import('./model.js').MonitModel} model
   * @param {DrawState} state
   */
  function draw (model, state) {
    // A crashing app's line says why after its name: room for that too.
    layout(Math.max(0, ...model.lines().map((l) => l.kind === 'app' ? l.name.length + (l.host ? l.host.length + 1 : 0) + 6 + (l.crashing ? 40 : 0) : 0)))
    header.setContent(escapeTags((state.header ?? '').slice(0, screen.width)))
    const onList = state.screen === 'list' || !state.page
    for (const box of [list, figures, logs]) box[onList ? 'show' : 'hide']()
    page[onList ? 'hide' : 'show']()
    if (onList) drawList(model, state)
    else if (state.page) {
      const p = inner(page)
      page.setLabel(` ${escapeTags(state.pageTitle ?? state.screen)} `)
      page.setContent(state.page(p.width, p.height))
    }
    if (state.help) {
      const h = inner(help)
      const lines = state.help.lines.slice(state.help.offset, state.help.offset + h.height)
      const more = state.help.offset + h.height < state.help.lines.length
      help.setLabel(more ? ' keys (PgDn: more) ' : ' keys ')
      help.setContent(lines.map((l) => escapeTags(l.slice(0, h.width))).join('\n'))
      help.show()
    } else {
      help.hide()
    }
    const said = renderFooter(state.hints, state.status, screen.width - 1, unicode)
    const message = color && !state.connected ? `{red-fg}${escapeTags(said.message)}{/red-fg}` : escapeTags(said.message)
    footer.setContent(`${escapeTags(said.keys)}${said.gap}${message}`)
    screen.render()
  }

  /**
   * @param {import('./model.js').MonitModel} model
   * @param {DrawState} state
   */
  function drawList (model, state) {
    const l = inner(list)
    const lines = model.lines()
    const selected = model.selectedIndex()
    // Keep the selected line in view.
    const visible = l.height - 1
    const first = Math.max(0, Math.min(selected - visible + 1, lines.length - visible))
    listTop = { first, top: /** @type {number} */ (list.atop ?? 1) + 2, left: /** @type {number} */ (list.aleft ?? 0), width: /** @type {number} */ (list.width) }
    const body = lines.slice(first, first + visible).map((line, i) => renderLine(line, l.width, i + first === selected, style))
    const sort = model.sort.key ? { label: SORTS[model.sort.key].label, descending: model.descending() } : null
    const empty = model.workers.size > 0 ? `nothing matches "${model.filter}" (Esc clears the filter)` : state.connected ? 'no apps (start one with: sup start app.js)' : ''
    list.setContent([`{underline}${escapeTags(renderListHeader(l.width, sort, unicode))}{/underline}`, ...(lines.length === 0 ? [escapeTags(empty)] : body)].join('\n'))
    list.setLabel(model.filter ? ` apps /${escapeTags(model.filter)} ` : ' apps ')
    const f = inner(figures)
    figures.setContent(renderFigures(model.selected(), model.selectedSeries(), f.width, f.height, style))
    const g = inner(logs)
    logs.setContent(renderLogs(model.selectedLogs(g.height), g.width, style))
    logs.setLabel(` logs ${escapeTags(model.selected()?.label ?? '')} `)
  }

  /** Where the list's first shown line is on the screen, for mouse clicks. */
  let listTop = { first: 0, top: 2, left: 0, width: 0 }
  /**
   * The index in model.lines() of the line under a click, or null outside the list.
   * @param {number} x
   * @param {number} y
   */
  function lineAt (x, y) {
    if (list.hidden || x < listTop.left || x >= listTop.left + listTop.width || y < listTop.top) return null
    return listTop.first + (y - listTop.top)
  }

  /** The help's height inside its border, for scrolling a page at a time. */
  const helpHeight = () => inner(help).height
  /** The help's width inside its border. */
  const helpWidth = () => inner(help).width
  /** The full-screen page's height inside its border. */
  const pageHeight = () => inner(page).height

  /**
   * Show a yes/no question; the command's key handler answers it (y: yes, any other key: no).
   * @param {string | null} question null hides it
   */
  function ask (question) {
    if (question === null) {
      prompt.hide()
    } else {
      prompt.setContent(`${escapeTags(question)}\n\n{bold}y{/bold} yes   {bold}n{/bold} / Esc no`)
      prompt.show()
    }
    screen.render()
  }

  return { screen, draw, ask, lineAt, helpHeight, helpWidth, pageHeight, unicode, style, destroy: () => screen.destroy() }
}
