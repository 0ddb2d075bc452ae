// @ts-check
// Rollouts on the terminal, for sup reload and sup scale: reload.progress events
// (daemon/rollout/) as lines such as "  worker 2/4 ready (pid 123) · retiring pid 98", and
// the outcomes as the exit code.
import { formatDuration } from './format.js'

/**
 * @param {import('../ipc/events.js').ReloadProgressEvent} event
 * @returns {string | null} null for events not shown on the terminal
 */
export function formatProgress (event) {
  const { name, op } = event
  switch (event.phase) {
    case 'begin':
      if (event.op === 'scale') return `scaling ${name} from ${event.from} to ${event.to} worker${event.to === 1 ? '' : 's'}`
      if (event.strategy === 'restart' && event.node) return `${name} moves to node ${event.node.version} (${event.node.path}): a cluster app changes node by a restart (stop, then start)`
      if (event.strategy === 'restart') return `${name} runs in fork mode: reload falls back to restart (stop, then start)`
      return `${op === 'reload' ? 'reloading' : 'replacing'} ${plural(event.workers, 'worker')} of ${name} (surge ${event.surge}, max unavailable ${event.maxUnavailable})` +
        (event.config ? ', with the settings of the config file' : '') + (event.env ? ', with the current environment' : '')
    case 'start':
      return `  starting a new worker on instance ${event.instance}${event.pid ? ` (pid ${event.pid})` : ''}`
    case 'ready': {
      const retiring = event.retiring.length > 0 ? ` · retiring ${pids(event.retiring)}` : ''
      return `  worker ${event.ready}/${event.total} ready (pid ${event.pid})${retiring}`
    }
    case 'retire':
      return `  retiring ${pids(event.retiring)}`
    case 'retired':
      return `  pid ${event.pid ?? '-'} gone (drained and stopped in ${event.ms} ms)`
    case 'lingering':
      return `  pid ${event.pid ?? '-'} holds ${plural(event.connections, 'long-lived connection')} (WebSocket, SSE): told it to shut down`
    case 'end':
      return formatEnd(event)
    default:
      return null
  }
}

/** @param {import('../ipc/events.js').ProgressEnd} event */
function formatEnd (event) {
  const took = event.ms >= 1000 ? formatDuration(event.ms) : `${event.ms} ms`
  switch (event.outcome) {
    case 'reloaded': return `${event.op === 'replace' ? 'replaced a worker of' : 'reloaded'} ${event.name} in ${took}: ${plural(event.started.length, 'new worker')}, ${event.retired.length} retired`
    case 'restarted': return `restarted ${event.name} in ${took}`
    case 'scaled': return `scaled ${event.name} in ${took}: ${plural(event.started.length, 'new worker')}, ${event.retired.length} retired`
    case 'unchanged': return `${event.name}: ${event.reason}; nothing to do`
    // Aborts go to stderr with the exit code (client/commands/reload.js).
    default: return null
  }
}

/** @param {Array<{ pid: number | null }>} refs */
function pids (refs) {
  const list = refs.map((r) => r.pid ?? '-').join(', ')
  return refs.length === 1 ? `pid ${list}` : `pids ${list}`
}

/** @param {number} n @param {string} word */
const plural = (n, word) => `${n} ${word}${n === 1 ? '' : 's'}`

/**
 * Print the progress of the rollouts of `apps` (all apps when empty) as it comes.
 * @param {import('../ipc/transport.js').Connection} conn
 * @param {import('./cli.js').CliIo} io
 * @param {string[]} apps
 */
export async function followProgress (conn, io, apps) {
  conn.onEvents({
    'reload.progress': (event) => {
      const line = formatProgress(event)
      if (line !== null) io.out(line)
    }
  })
  await conn.request('subscribe', { topics: ['reload.progress'], apps })
}

/**
 * One line per aborted rollout on stderr, exit 1 if any.
 * @param {import('../ipc/events.js').RolloutOutcome[]} outcomes
 * @param {import('./cli.js').CliIo} io
 * @param {boolean} quiet only the exit code (--json already has it all)
 */
export function reportOutcomes (outcomes, io, quiet) {
  const aborted = outcomes.filter((o) => o.outcome === 'aborted')
  if (!quiet) {
    for (const o of aborted) io.err(`sup: ${o.op} aborted: ${o.reason}; the old workers still serve`)
  }
  return aborted.length > 0 ? 1 : 0
}
