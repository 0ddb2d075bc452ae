// @ts-check
// sup monit: the terminal dashboard. Follows the daemon's stream (metrics, logs, state),
// redraws at most a few times a second, and keeps waiting when the daemon goes away.
import { createRequire } from 'node:module'
import { SupError } from '../../ipc/errors.js'
import { METHODS } from '../../ipc/methods.js'
import { connectDaemon } from '../daemon.js'
import { colorEnabled } from '../format.js'
import { MonitModel } from '../monit/model.js'
import { createView } from '../monit/view.js'

/** Frames at most this often: the stream can bring many log lines a second. */
const MIN_FRAME_MS = 250
/** How long to wait between attempts to reach a daemon that is not there. */
const RECONNECT_MS = 1000
/** How long a message in the footer stays. */
const MESSAGE_MS = 5000
/** Log lines fetched per app when monit connects. */
const INITIAL_LOG_LINES = 100

const ACTIONS = /** @type {const} */ ({
  restart: { method: 'app.restart', doing: 'restarting', done: 'restarted' },
  reload: { method: 'app.reload', doing: 'reloading', done: 'reloaded' },
  stop: { method: 'app.stop', doing: 'stopping', done: 'stopped' }
})

/** @param {import('../cli.js').CommandContext} ctx */
export async function run ({ paths, io }) {
  if (!process.stdout.isTTY || !process.stdin.isTTY) throw new SupError('SUP_ERR_MONIT_NOT_A_TERMINAL')
  // Lazily, so no other command pays for loading blessed.
  const blessed = createRequire(import.meta.url)('blessed')
  const model = new MonitModel()
  const view = createView(blessed, { color: colorEnabled() && !('NO_COLOR' in io.env), title: 'sup monit' })
  /** @type {import('../../ipc/transport.js').Connection | null} */
  let conn = null
  let connected = false
  let waiting = 'connecting...'
  let message = ''
  const life = { stopped: false }
  /** @type {NodeJS.Timeout | null} */
  let frameTimer = null
  let dirty = false
  /** @type {NodeJS.Timeout | null} */
  let messageTimer = null
  /** @type {NodeJS.Timeout | null} */
  let retryTimer = null
  /** @type {() => void} */
  let wakeRetry = () => {}

  const redraw = () => {
    if (life.stopped) return
    if (frameTimer) {
      dirty = true
      return
    }
    view.draw(model, { status: connected ? message : waiting, connected })
    frameTimer = setTimeout(() => {
      frameTimer = null
      if (dirty) {
        dirty = false
        redraw()
      }
    }, MIN_FRAME_MS)
  }
  /** @param {string} text */
  const say = (text) => {
    message = text
    if (messageTimer) clearTimeout(messageTimer)
    messageTimer = setTimeout(() => { message = ''; redraw() }, MESSAGE_MS)
    redraw()
  }

  /** @type {import('../../ipc/events.js').TopicHandlers} */
  const onEvents = {
    metrics: (sample) => { model.applyMetrics(sample); redraw() },
    'app.state': (row) => { model.applyState(row); redraw() },
    log: (entry) => { model.applyLog(entry); redraw() },
    event: (event) => { model.applyEvent(event); redraw() }
  }

  const follow = async () => {
    while (!life.stopped) {
      try {
        conn = await connectDaemon(paths)
        conn.onEvents(onEvents)
        const closed = new Promise((resolve) => conn?.once('close', resolve))
        await conn.request('subscribe', { topics: ['metrics', 'log', 'app.state', 'event'] })
        model.setWorkers(await conn.request('app.list'))
        // The crashes of the last minute, so a crash loop shows from the first frame.
        for (const event of (await conn.request('events.list', { limit: 200 })).events) model.applyEvent(event)
        model.setHistory(await conn.request('metrics.history', {}))
        // Per app, so that one chatty app does not fill the tail of all the others.
        for (const name of model.apps().keys()) {
          model.setLogs(name, await conn.request('logs.tail', { target: name, lines: INITIAL_LOG_LINES }))
        }
        connected = true
        redraw()
        await closed
        connected = false
        waiting = 'the daemon went away; waiting for it (figures below are the last seen)'
      } catch (err) {
        connected = false
        const code = /** @type {any} */ (err)?.code
        waiting = code === 'SUP_ERR_DAEMON_UNREACHABLE' ? `no daemon running for ${paths.home}; waiting (sup start runs one)` : `cannot reach the daemon (${/** @type {Error} */ (err).message}); retrying`
        conn?.close()
      }
      conn = null
      redraw()
      if (life.stopped) return
      await new Promise((resolve) => {
        wakeRetry = () => resolve(undefined)
        retryTimer = setTimeout(resolve, RECONNECT_MS)
      })
    }
  }

  /** @param {keyof typeof ACTIONS} verb */
  const act = async (verb) => {
    const selected = model.selected()
    if (!selected || !conn || view.isPrompting()) return
    const action = ACTIONS[verb]
    if (!(action.method in METHODS)) return say(`${verb} is not available yet`)
    const count = selected.workers.length
    const ok = await view.confirm(`${verb} ${selected.label} (${count} worker${count === 1 ? '' : 's'})?`)
    if (!ok || !conn) return redraw()
    say(`${action.doing} ${selected.label}...`)
    try {
      await conn.request(action.method, { targets: [selected.target] })
      say(`${action.done} ${selected.label}`)
    } catch (err) {
      say(`sup: ${/** @type {Error} */ (err).message}`)
    }
  }

  const { screen } = view
  const guard = (/** @type {() => void} */ fn) => () => { if (!view.isPrompting()) { fn(); redraw() } }
  screen.key(['up', 'k'], guard(() => model.move(-1)))
  screen.key(['down', 'j'], guard(() => model.move(1)))
  screen.key(['enter'], guard(() => model.toggle()))
  screen.key(['r'], () => { act('restart') })
  screen.key(['l'], () => { act('reload') })
  screen.key(['s'], () => { act('stop') })
  screen.on('resize', () => redraw())

  const done = new Promise((resolve) => {
    const quit = () => resolve(undefined)
    screen.key(['q', 'C-c'], () => { if (!view.isPrompting()) quit() })
    process.once('SIGTERM', quit)
    // No SIGHUP handler: the terminal is gone, there is nothing to restore, and restoring it
    // anyway makes node abort at exit (its tcsetattr on a hung-up tty fails with EIO).
  })
  redraw()
  follow()
  await done
  life.stopped = true
  for (const timer of [frameTimer, messageTimer, retryTimer]) if (timer) clearTimeout(timer)
  wakeRetry()
  // Give the terminal back exactly as we found it before anything else can fail.
  view.destroy()
  await /** @type {import('../../ipc/transport.js').Connection | null} */ (conn)?.close()
  return 0
}
