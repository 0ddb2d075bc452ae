// @ts-check
// The blessed screen of `sup monit`: four boxes (apps, figures, logs, footer) and a confirm
// prompt, laid out for the terminal's size and redrawn from the model. Only this module and
// the monit command touch blessed; the command imports it lazily.
import { renderFigures, renderLine, renderListHeader, renderLogs, escapeTags } from './render.js'

/** Below this width the right-hand panes go under the list instead of beside it. */
const SIDE_BY_SIDE_MIN = 80

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
  const style = { color, unicode }
  const border = { type: 'line' }
  const boxStyle = color ? { border: { fg: 'gray' }, label: { bold: true } } : {}
  const list = blessed.box({ parent: screen, label: ' apps ', border, tags: true, wrap: false, style: boxStyle })
  const figures = blessed.box({ parent: screen, label: ' figures ', border, tags: true, wrap: false, style: boxStyle })
  const logs = blessed.box({ parent: screen, label: ' logs ', border, tags: true, wrap: false, style: boxStyle })
  const footer = blessed.box({ parent: screen, height: 1, bottom: 0, left: 0, width: '100%', tags: true })
  const prompt = blessed.box({ parent: screen, hidden: true, top: 'center', left: 'center', width: 50, height: 5, border, tags: true, style: color ? { border: { fg: 'yellow' } } : {} })

  function layout () {
    const width = screen.width
    const height = screen.height - 1
    const side = width >= SIDE_BY_SIDE_MIN
    const listWidth = side ? Math.max(46, Math.floor(width * 0.5)) : width
    const listHeight = side ? height : Math.max(6, Math.floor(height * 0.4))
    Object.assign(list.position, { top: 0, left: 0, width: listWidth, height: listHeight })
    const right = { left: side ? listWidth : 0, width: side ? width - listWidth : width }
    const top = side ? 0 : listHeight
    const rest = height - top
    const figuresHeight = Math.min(rest - 3, Math.max(8, Math.floor(rest * 0.5)))
    Object.assign(figures.position, { top, height: figuresHeight, ...right })
    Object.assign(logs.position, { top: top + figuresHeight, height: rest - figuresHeight, ...right })
    prompt.width = Math.min(60, width - 4)
  }

  /**
   * @param {import('./model.js').MonitModel} model
   * @param {{ status: string, connected: boolean }} state
   */
  function draw (model, state) {
    layout()
    const inner = (/** @type {any} */ box) => ({ width: Math.max(1, box.width - 2), height: Math.max(1, box.height - 2) })
    const l = inner(list)
    const lines = model.lines()
    const selected = model.selectedIndex()
    // Keep the selected line in view.
    const visible = l.height - 1
    const first = Math.max(0, Math.min(selected - visible + 1, lines.length - visible))
    const body = lines.slice(Math.max(0, first), Math.max(0, first) + visible).map((line, i) => renderLine(line, l.width, i + Math.max(0, first) === selected, style))
    list.setContent([`{underline}${escapeTags(renderListHeader(l.width))}{/underline}`, ...(lines.length === 0 ? [state.connected ? 'no apps (start one with: sup start app.js)' : ''] : body)].join('\n'))
    const f = inner(figures)
    figures.setContent(renderFigures(model.selected(), model.selectedSeries(), f.width, f.height, style))
    const g = inner(logs)
    logs.setContent(renderLogs(model.selectedLogs(g.height), g.width, style))
    logs.setLabel(` logs ${model.selected()?.label ?? ''} `)
    const keys = style.unicode ? '↑↓/jk select · ⏎ expand · r restart · l reload · s stop · q quit' : 'up/down/jk select | enter expand | r restart | l reload | s stop | q quit'
    const status = state.status ? ` ${state.status}` : ''
    const room = screen.width - status.length - 1
    footer.setContent(`${escapeTags(keys.length > room ? keys.slice(0, Math.max(0, room)) : keys)}${color && !state.connected ? `{red-fg}${escapeTags(status)}{/red-fg}` : escapeTags(status)}`)
    screen.render()
  }

  /**
   * Ask a yes/no question; resolves true on y.
   * @param {string} question
   * @returns {Promise<boolean>}
   */
  function confirm (question) {
    prompt.setContent(`${escapeTags(question)}\n\n{bold}y{/bold} yes   {bold}n{/bold} / Esc no`)
    prompt.show()
    screen.render()
    return new Promise((resolve) => {
      screen.onceKey(['y', 'n', 'escape', 'q'], (/** @type {string} */ ch, /** @type {{ name: string }} */ key) => {
        prompt.hide()
        screen.render()
        resolve(key.name === 'y')
      })
    })
  }

  return { screen, draw, confirm, isPrompting: () => !prompt.hidden, destroy: () => screen.destroy() }
}
