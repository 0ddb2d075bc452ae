// @ts-check
// sup describe <name|id> [--json]
import { connectDaemon } from '../daemon.js'
import { formatBytes, formatDuration, renderTable, renderWorkers } from '../format.js'

/**
 * @param {string} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    const info = await conn.request('app.describe', { target })
    if (opts.json) {
      io.out(JSON.stringify(info, null, 2))
      return 0
    }
    const { config } = info
    const rows = Object.entries(config)
      .filter(([key]) => key !== 'env')
      .map(([key, value]) => [key, typeof value === 'string' ? value : JSON.stringify(value)])
    rows.push(['env', Object.keys(config.env).join(', ') || '(none of its own)'])
    io.out(`app ${info.name}`)
    io.out(renderTable(['key', 'value'], rows))
    io.out('')
    io.out('log files')
    const open = new Map((info.log_files ?? []).map((/** @type {any} */ f) => [f.path, f]))
    for (const file of info.logs) io.out(`  ${file}${describeFile(open.get(file))}`)
    for (const line of describeTriggers(info.triggers)) io.out(line)
    io.out('')
    if (info.last_rollout) {
      io.out(`last ${info.last_rollout.op}: ${describeRollout(info.last_rollout)}`)
      io.out('')
    }
    io.out(renderWorkers(info.workers))
    const sampled = info.workers.filter((/** @type {any} */ w) => w.time !== null && w.time !== undefined)
    if (sampled.length > 0) {
      io.out('')
      io.out(renderWorkerFigures(sampled))
    }
    return 0
  } finally {
    await conn.close()
  }
}

/**
 * "aborted 12s ago after 1.2s: <reason>", "reloaded 3m ago in 352 ms: 2 new, 2 retired".
 * @param {{ outcome: string, reason: string | null, at: number, ms: number, started: unknown[], retired: unknown[] }} rollout
 */
export function describeRollout (rollout, now = Date.now()) {
  const ago = `${formatDuration(now - rollout.at)} ago`
  if (rollout.outcome === 'aborted') return `aborted ${ago}: ${rollout.reason}`
  const counts = rollout.started.length + rollout.retired.length > 0 ? `: ${rollout.started.length} new, ${rollout.retired.length} retired` : ''
  return `${rollout.outcome} ${ago} in ${rollout.ms} ms${counts}${rollout.outcome !== 'reloaded' && rollout.outcome !== 'scaled' && rollout.reason ? ` (${rollout.reason})` : ''}`
}

/**
 * What is known of an open log file, after its path.
 * @param {{ size: number, rotations: number, dropped_lines: number, dropped_bytes: number, error: { message: string } | null } | undefined} file
 */
function describeFile (file) {
  if (!file) return ''
  const parts = [formatBytes(file.size), `${file.rotations} rotation(s)`]
  if (file.dropped_lines > 0) parts.push(`${file.dropped_lines} line(s) dropped (${formatBytes(file.dropped_bytes)})`)
  return `  (${parts.join(', ')})${file.error ? `\n    error: ${file.error.message}` : ''}`
}

/**
 * What restarts the app by itself: its cron schedule and its file watcher.
 * @param {any} triggers describe's `triggers`
 * @returns {string[]}
 */
function describeTriggers (triggers) {
  const lines = []
  const cron = triggers?.cron_restart
  if (cron) lines.push('', `cron_restart "${cron.expression}": next restart ${cron.next ? new Date(cron.next).toISOString() : 'never'}`)
  const watch = triggers?.watch
  if (watch) {
    const ignoring = watch.ignore.length > 0 ? `, ignoring ${watch.ignore.join(', ')}` : ''
    lines.push('', `watching ${watch.paths.join(', ')} (restart ${watch.delay} ms after the last change${ignoring}; node_modules and .git never count)`)
    if (watch.error) lines.push(`  error: ${watch.error.message}`)
  }
  return lines
}

/**
 * The figures only describe shows: processes in the tree, event-loop delay, heap, handles.
 * @param {any[]} workers rows of app.describe (WorkerRow plus the last sample)
 */
export function renderWorkerFigures (workers) {
  const ms = (/** @type {number} */ v) => `${v < 10 ? v.toFixed(1) : Math.round(v)}ms`
  return renderTable(
    ['id', 'processes', 'loop p50', 'loop p99', 'heap used/total', 'handles'],
    workers.map((w) => [
      String(w.id),
      String(w.processes),
      w.loop_delay ? ms(w.loop_delay.p50) : '-',
      w.loop_delay ? ms(w.loop_delay.p99) : '-',
      w.heap ? `${formatBytes(w.heap.used)} / ${formatBytes(w.heap.total)}` : '-',
      w.handles === null ? '-' : String(w.handles)
    ])
  )
}
