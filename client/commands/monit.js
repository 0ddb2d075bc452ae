// @ts-check
// sup monit: the terminal dashboard. Follows the daemon's stream (metrics, logs, state),
// redraws at most a few times a second, and keeps waiting when the daemon goes away.
// Every key goes through one table (monit/keys.js) to a handler of `handlers` below.
import { appendFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { performance } from 'node:perf_hooks'
import { SupError } from '../../ipc/errors.js'
import { METHODS } from '../../ipc/methods.js'
import { connectDaemon } from '../daemon.js'
import { colorEnabled } from '../format.js'
import { ACTIONS } from '../monit/actions.js'
import { createDetailView } from '../monit/detail.js'
import { createHostSampler } from '../monit/host.js'
import { GLOBAL, MOVED, createKeymap, keyName } from '../monit/keys.js'
import { MonitModel, appKey } from '../monit/model.js'
import { createEventsView, createLogView } from '../monit/pager-views.js'
import { renderHeader, renderHostTotals } from '../monit/render.js'
import { createView } from '../monit/view.js'
import { installView } from '../monit/views.js'

/** Frames at most this often: the stream can bring many log lines a second. */
const MIN_FRAME_MS = 250
/** How long a frame waits for the rest of a burst of events. */
const BURST_MS = 20
/** How long to wait between attempts to reach a daemon that is not there. */
const RECONNECT_MS = 1000
/** How long a message in the footer stays. */
const MESSAGE_MS = 5000
/** How often the host's totals in the header are read. */
const HOST_MS = 2000
/** Log lines fetched per app when monit connects. */
const INITIAL_LOG_LINES = 100
/** `sup monit --host`: host i's worker ids become i * ID_SPAN + id here, so they never collide. */
const ID_SPAN = 1_000_000
/** The full-screen views, in the order Tab visits them (monit/views.js says how to add one). */
const VIEWS = [createDetailView, createLogView, createEventsView]

/**
 * For the first-screen figure (docs/monitoring.md, "What it costs"): when the daemon answered
 * and when the first screen with its apps was drawn, in ms since monit started.
 * @param {string} file
 * @param {Record<string, number>} figures
 */
function writeTiming (file, figures) {
  try {
    appendFileSync(file, JSON.stringify(figures) + '\n', { mode: 0o600 })
  } catch {}
}

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io }) {
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new SupError('SUP_ERR_MONIT_NOT_A_TERMINAL')
  // Lazily, so no other command pays for loading blessed.
  const blessed = createRequire(import.meta.url)('blessed')
  const model = new MonitModel()
  const view = createView(blessed, { color: colorEnabled() && !('NO_COLOR' in io.env), title: 'sup monit' })
  /**
   * A daemon followed: this machine's, or with --host one per host (each row tagged with its
   * host, its worker ids moved out of the other hosts' way).
   * @typedef {{ host: string | null, offset: number, paths: import('../../ipc/paths.js').SupPaths & { via?: () => Promise<import('../../ipc/transport.js').Connection> }, conn: import('../../ipc/transport.js').Connection | null, connected: boolean, waiting: string }} Link
   */
  /** @type {Link[]} */
  const links = (io.fleet ?? [null]).map((t, i) => ({ host: t?.label ?? null, offset: i * ID_SPAN, paths: t ? { ...paths, via: t.via } : paths, conn: null, connected: false, waiting: 'connecting...' }))
  /** Any daemon reached. */
  const isConnected = () => links.some((l) => l.connected)
  /** What the daemons not reached are doing, host by host. */
  const waitingText = () => links.filter((l) => !l.connected).map((l) => l.host ? `${l.host}: ${l.waiting}` : l.waiting).join('; ')
  /** @param {string | null | undefined} host */
  const linkOf = (host) => links.find((l) => l.host === (host ?? null)) ?? links[0]
  let message = ''
  const life = { stopped: false }
  /** @type {NodeJS.Timeout | null} */
  let frameTimer = null
  let lastFrame = -Infinity
  /** @type {NodeJS.Timeout | null} */
  let messageTimer = null
  /** @type {Set<NodeJS.Timeout>} */
  const retryTimers = new Set()
  /** @type {Set<(value?: unknown) => void>} */
  const wakers = new Set()
  /**
   * What the keys act on: the screen shown, the help's scroll, a question waiting for y/n, the
   * filter being typed, the mouse.
   * @type {{ screen: string, help: { offset: number } | null, answer: ((yes: boolean) => void) | null, typing: boolean, mouse: boolean }}
   */
  const ui = { screen: 'list', help: null, answer: null, typing: false, mouse: false }

  const sampleHost = createHostSampler()
  let host = sampleHost()
  const hostTimer = setInterval(() => { host = sampleHost(); redraw() }, HOST_MS)

  const keymap = createKeymap()
  const helpLines = () => keymap.helpLines(view.unicode, view.helpWidth())
  /** @type {Map<string, import('../monit/views.js').MonitView>} */
  const views = new Map()

  /** The selected app's max_memory_restart, asked once per app (the memory chart's scale). */
  const learnLimit = () => {
    const selected = model.selected()
    if (!selected) return
    const { app, host } = selected
    const key = appKey(host, app)
    if (!linkOf(host).connected || model.limits.has(key)) return
    model.limits.set(key, null)
    request('app.describe', { target: app }).then((described) => {
      const limit = described?.config?.max_memory_restart
      model.limits.set(key, typeof limit === 'number' ? limit : null)
      redraw()
    }, () => model.limits.delete(key))
  }
  const draw = () => {
    learnLimit()
    const current = views.get(ui.screen)
    const filter = ui.typing ? `/${model.filter}_` : ''
    const workers = [...model.workers.values()]
    const counts = { apps: model.apps().size, workers: workers.length, online: workers.filter((w) => w.status === 'online').length }
    const connected = isConnected()
    const waiting = waitingText()
    view.draw(model, {
      // With --host, each host's totals (this machine's figures would say nothing of them).
      header: io.fleet ? renderHostTotals(model.hostTotals(), view.screen.width, view.unicode) : renderHeader(host, counts, view.screen.width, view.unicode),
      status: connected ? (filter || message || (waiting && `not reached: ${waiting}`)) : waiting,
      connected,
      screen: ui.screen,
      hints: ui.typing ? ['Enter keep', 'Esc clear'] : current?.typing?.() ? ['Enter find', 'Esc cancel'] : keymap.hints(ui.screen),
      page: current ? (width, height) => current.render(width, height) : null,
      pageTitle: current ? (current.label?.() ?? current.title) : null,
      help: ui.help ? { lines: helpLines(), offset: ui.help.offset } : null
    })
  }
  // One frame for a burst: the daemon's sampling pass sends every worker's figures at once
  // (50 events), drawn together a moment later, and frames at most every MIN_FRAME_MS.
  const redraw = () => {
    if (life.stopped || frameTimer) return
    frameTimer = setTimeout(() => {
      frameTimer = null
      lastFrame = performance.now()
      draw()
    }, Math.max(BURST_MS, lastFrame + MIN_FRAME_MS - performance.now()))
  }
  /** A key's answer shows now, not at the next frame. */
  const redrawNow = () => {
    if (life.stopped) return
    lastFrame = performance.now()
    draw()
  }
  /** @param {string} text */
  const say = (text) => {
    message = text
    if (messageTimer) clearTimeout(messageTimer)
    messageTimer = setTimeout(() => { message = ''; redraw() }, MESSAGE_MS)
    redraw()
  }
  /**
   * Ask a yes/no question; the next key answers it (y: yes, anything else: no).
   * @param {string} question
   * @returns {Promise<boolean>}
   */
  const confirm = (question) => new Promise((resolve) => {
    view.ask(question)
    ui.answer = (yes) => {
      ui.answer = null
      view.ask(null)
      resolve(yes)
    }
  })
  /**
   * A request to the daemon of the selection's host (this machine's without --host).
   * @param {string} method @param {Record<string, unknown>} [params]
   */
  const request = (method, params) => {
    const link = linkOf(model.selected()?.host)
    if (!link.conn || !link.connected) return Promise.reject(new Error(`not connected to the daemon${link.host ? ` of ${link.host}` : ''}`))
    return link.conn.request(method, params)
  }

  /** @param {string} verb a key of ACTIONS */
  const act = async (verb) => {
    const selected = model.selected()
    if (!selected || !linkOf(selected.host).conn) return
    const action = ACTIONS[verb]
    if (!(action.method in METHODS)) return say(`${verb} is not available yet`)
    const question = action.ask(selected)
    if (question !== null && !(await confirm(question))) return redraw()
    const what = action.method === 'app.restart' || action.method === 'app.stop' || action.method === 'app.reload' ? selected.label : selected.app
    say(`${action.doing} ${what}...`)
    try {
      await request(action.method, action.params(selected))
      say(`${action.done} ${what}`)
    } catch (err) {
      say(`sup: ${/** @type {Error} */ (err).message}`)
    }
  }

  /** The view shown lets go of what it keeps. */
  const leave = () => views.get(ui.screen)?.close?.()
  /** @param {import('../monit/views.js').MonitView} shown */
  const open = (shown) => {
    leave()
    ui.screen = shown.name
    redrawNow()
    Promise.resolve(shown.open?.()).catch((err) => say(`sup: ${err.message}`))
  }

  /** @type {Record<string, () => void | Promise<void>>} */
  const handlers = {
    help: () => { ui.help = { offset: 0 } },
    'help.down': () => { if (ui.help) ui.help.offset = Math.max(0, Math.min(helpLines().length - view.helpHeight(), ui.help.offset + view.helpHeight() - 1)) },
    'help.up': () => { if (ui.help) ui.help.offset = Math.max(0, ui.help.offset - view.helpHeight() + 1) },
    back: () => {
      if (ui.screen !== 'list') {
        leave()
        ui.screen = 'list'
      } else if (model.filter) model.setFilter('')
    },
    'view.next': () => {
      const order = ['list', ...views.keys()]
      const next = order[(order.indexOf(ui.screen) + 1) % order.length]
      const shown = views.get(next)
      if (shown) open(shown)
      else {
        leave()
        ui.screen = 'list'
      }
    },
    mouse: () => {
      ui.mouse = !ui.mouse
      if (ui.mouse && !mouseHeard) {
        mouseHeard = true
        view.screen.on('mouse', onMouse)
      }
      if (ui.mouse) view.screen.program.enableMouse()
      else view.screen.program.disableMouse()
      say(ui.mouse ? 'mouse on: click selects, the wheel scrolls (m: off, to select text)' : 'mouse off: the terminal selects text again')
    },
    down: () => model.move(1),
    up: () => model.move(-1),
    'page.down': () => model.move(Math.max(1, view.screen.height - 6)),
    'page.up': () => model.move(-Math.max(1, view.screen.height - 6)),
    top: () => model.moveTo('first'),
    bottom: () => model.moveTo('last'),
    expand: () => model.toggle(),
    filter: () => { ui.typing = true },
    'sort.cpu': () => model.setSort('cpu'),
    'sort.memory': () => model.setSort('memory'),
    'sort.restarts': () => model.setSort('restarts'),
    'sort.uptime': () => model.setSort('uptime'),
    'sort.name': () => model.setSort('name'),
    ...Object.fromEntries(Object.keys(ACTIONS).map((verb) => [verb, () => act(verb)]))
  }
  /** @type {import('../monit/views.js').ViewContext} */
  const context = { model, request, redraw, say, confirm, pageHeight: view.pageHeight, style: view.style }
  for (const make of VIEWS) {
    const made = make(context)
    views.set(made.name, made)
    installView(keymap, handlers, made, open)
  }

  /**
   * A key typed into the filter: text narrows the list as it is typed.
   * @param {string} key
   * @param {string | undefined} ch
   */
  const typeFilter = (key, ch) => {
    if (key === 'enter') ui.typing = false
    else if (key === 'escape') {
      ui.typing = false
      model.setFilter('')
    } else if (key === 'backspace') model.setFilter(model.filter.slice(0, -1))
    else if (key === 'C-u') model.setFilter('')
    else if (key === 'space') model.setFilter(model.filter + ' ')
    else if (ch && key === ch && model.filter.length < 100) model.setFilter(model.filter + ch)
  }

  /** @type {(value?: unknown) => void} */
  let quit = () => {}
  const done = new Promise((resolve) => { quit = resolve })

  view.screen.on('keypress', (/** @type {string | undefined} */ ch, /** @type {any} */ raw) => {
    const key = keyName(ch, raw)
    if (key === 'C-c') return quit()
    if (ui.answer) return ui.answer(key === 'y')
    if (ui.typing) {
      typeFilter(key, ch)
      return redrawNow()
    }
    // A view's search being typed takes every key (q is a letter there).
    const shown = views.get(ui.screen)
    if (shown?.typing?.()) {
      shown.type?.(key, ch)
      return redrawNow()
    }
    if (ui.help) {
      const binding = keymap.lookup('help', key)
      if (binding?.action === 'quit') return quit()
      if (binding?.action === 'help.down' || binding?.action === 'help.up') handlers[binding.action]()
      else ui.help = null
      return redrawNow()
    }
    const binding = keymap.lookup(ui.screen, key)
    if (!binding) {
      const moved = /** @type {Record<string, string>} */ (MOVED)[key]
      if (moved && ui.screen === 'list' && !keymap.lookup(GLOBAL, key)) say(`${key} ${moved}; ? lists the keys`)
      return
    }
    if (binding.action === 'quit') return quit()
    const handler = handlers[binding.action]
    if (!handler) return say(`${key}: ${binding.help} is not available yet`)
    Promise.resolve(handler()).catch((err) => say(`sup: ${err.message}`))
    redrawNow()
  })
  view.screen.on('resize', () => redraw())
  // Only after m: until then the terminal keeps the mouse (to select and copy text). blessed
  // asks the terminal for the mouse as soon as anyone listens to it, so the listener waits too.
  let mouseHeard = false
  /** @param {{ action: string, x: number, y: number }} data */
  const onMouse = (data) => {
    if (!ui.mouse || ui.answer || ui.typing || ui.screen !== 'list') return
    if (data.action === 'wheelup') model.move(-3)
    else if (data.action === 'wheeldown') model.move(3)
    else if (data.action === 'mousedown') {
      const index = view.lineAt(data.x, data.y)
      const line = index === null ? undefined : model.lines()[index]
      if (line) model.select(line)
    } else return
    redrawNow()
  }

  /**
   * A row of a host, as the model keeps it: its host, and an id out of the other hosts' way.
   * @template {{ id?: number | null }} T
   * @param {Link} link
   * @param {T} row
   * @returns {T}
   */
  const tag = (link, row) => !link.host ? row : typeof row.id === 'number' ? { ...row, host: link.host, id: row.id + link.offset, remote_id: row.id } : { ...row, host: link.host }

  /** @param {Link} link @returns {import('../../ipc/events.js').TopicHandlers} */
  const onEventsOf = (link) => ({
    metrics: (sample) => { model.applyMetrics(tag(link, sample)); redraw() },
    'app.state': (row) => { model.applyState(tag(link, row)); redraw() },
    log: (entry) => {
      model.applyLog(tag(link, entry))
      // The views keep the host's own ids (they ask that host for more) and check the host.
      views.get(ui.screen)?.onLog?.(link.host ? /** @type {typeof entry} */ ({ ...entry, host: link.host }) : entry)
      redraw()
    },
    event: (event) => {
      const tagged = tag(link, event)
      model.applyEvent(tagged)
      views.get(ui.screen)?.onEvent?.(tagged)
      redraw()
    }
  })

  /** @param {Link} link */
  const follow = async (link) => {
    while (!life.stopped) {
      /** @type {import('../../ipc/transport.js').Connection | null} */
      let conn = null
      try {
        conn = link.conn = await connectDaemon(link.paths)
        conn.onEvents(onEventsOf(link))
        const closed = new Promise((resolve) => conn?.once('close', resolve))
        await conn.request('subscribe', { topics: ['metrics', 'log', 'app.state', 'event'] })
        /** @type {import('../monit/model.js').WorkerView[]} */
        const rows = (await conn.request('app.list')).map((/** @type {any} */ r) => tag(link, r))
        // This host's workers replace its own, not the other hosts'.
        model.setWorkers([...[...model.workers.values()].filter((w) => (w.host ?? null) !== link.host), ...rows])
        model.limits.clear()
        // The first screen as soon as the daemon has answered with its apps; the rest (the
        // last minute's crashes, the charts' history, the log tails) fills in after it.
        const answered = performance.now()
        link.connected = true
        redrawNow()
        if (io.env.SUP_MONIT_TIMING) writeTiming(io.env.SUP_MONIT_TIMING, { answered_ms: answered, drawn_ms: performance.now(), apps: model.apps().size, workers: model.workers.size })
        const names = [...new Set(rows.map((r) => r.name))]
        const [events, history, ...tails] = await Promise.all([
          conn.request('events.list', { limit: 200 }),
          conn.request('metrics.history', {}),
          // Per app, so that one chatty app does not fill the tail of all the others.
          ...names.map((name) => conn?.request('logs.tail', { target: name, lines: INITIAL_LOG_LINES }).then((lines) => ({ name, lines })))
        ])
        // The crashes of the last minute, so a crash loop shows from the first frames.
        for (const event of events.events) model.applyEvent(tag(link, event))
        model.setHistory(history.map((/** @type {any} */ h) => tag(link, h)))
        for (const t of tails) if (t) model.setLogs(appKey(link.host, t.name), t.lines.map((/** @type {any} */ l) => tag(link, l)))
        redraw()
        await closed
        link.connected = false
        link.waiting = 'the daemon went away; waiting for it (figures below are the last seen)'
      } catch (err) {
        link.connected = false
        const code = /** @type {any} */ (err)?.code
        link.waiting = code === 'SUP_ERR_DAEMON_UNREACHABLE' ? `no daemon running for ${paths.home}; waiting (sup start runs one)` : `cannot reach the daemon (${/** @type {Error} */ (err).message}); retrying`
        conn?.close()
      }
      link.conn = null
      redraw()
      if (life.stopped) return
      await new Promise((resolve) => {
        const wake = () => {
          clearTimeout(timer)
          retryTimers.delete(timer)
          wakers.delete(wake)
          resolve(undefined)
        }
        const timer = setTimeout(wake, RECONNECT_MS)
        retryTimers.add(timer)
        wakers.add(wake)
      })
    }
  }

  process.once('SIGTERM', quit)
  // No SIGHUP handler: the terminal is gone, there is nothing to restore, and restoring it
  // anyway makes node abort at exit (its tcsetattr on a hung-up tty fails with EIO).
  redraw()
  for (const link of links) follow(link)
  await done
  life.stopped = true
  leave()
  ui.answer?.(false)
  clearInterval(hostTimer)
  for (const timer of [frameTimer, messageTimer, ...retryTimers]) if (timer) clearTimeout(timer)
  for (const wake of wakers) wake()
  // Give the terminal back exactly as we found it before anything else can fail.
  view.destroy()
  await Promise.all(links.map((l) => l.conn?.close()))
  return 0
}
