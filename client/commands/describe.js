// @ts-check
// sup describe <name|id> [--json]
import { connectDaemon } from '../daemon.js'
import { formatBytes, formatDuration, renderTable, renderWorkers } from '../format.js'
import { escapeControls, escapeDeep, stringifyForTerminal } from '../../ipc/terminal-text.js'
import { maskSecrets, secretKeyTest } from '../mask-secrets.js'

/**
 * @param {string} target
 * @param {import('../cli.js').CommandContext} ctx
 */
export async function run (target, { paths, io, opts }) {
  const conn = await connectDaemon(paths)
  try {
    const described = await conn.request('app.describe', { target })
    const answer = opts.reveal ? described : maskSecrets(described, secretKeyTest(io.env))
    if (opts.json) {
      io.out(stringifyForTerminal(answer, 2))
      return 0
    }
    // Every string of it (env, paths, script, git remote, messages) may be anyone's text.
    const info = escapeDeep(answer)
    const { config } = info
    const rows = Object.entries(config)
      .filter(([key]) => key !== 'env')
      .map(([key, value]) => [key, typeof value === 'string' ? value : escapeControls(JSON.stringify(value))])
    rows.push(['env', Object.keys(config.env).join(', ') || '(none of its own)'])
    const settings = Object.keys(info.settings ?? {})
    if (settings.length > 0) rows.push(['sup set', settings.join(', ')])
    io.out(`app ${info.name}`)
    io.out(renderTable(['key', 'value'], rows))
    io.out('')
    io.out('log files')
    const open = new Map((info.log_files ?? []).map((/** @type {any} */ f) => [f.path, f]))
    for (const file of info.logs) io.out(`  ${file}${describeFile(open.get(file))}`)
    for (const line of describeTriggers(info.triggers)) io.out(line)
    if (info.versioning) io.out(describeVersioning(info.versioning))
    io.out('')
    if (info.last_rollout) {
      io.out(`last ${info.last_rollout.op}: ${describeRollout(info.last_rollout)}`)
      io.out('')
    }
    for (const line of describeRuntimes(info.workers)) io.out(line)
    if (info.containment) io.out(describeContainment(info.containment))
    io.out(renderWorkers(info.workers))
    for (const line of describeProbes(config, info.workers)) io.out(line)
    const sampled = info.workers.filter((/** @type {any} */ w) => w.time !== null && w.time !== undefined)
    if (sampled.length > 0) {
      io.out('')
      io.out(renderWorkerFigures(sampled))
    }
    for (const line of describeCgroups(info.workers)) io.out(line)
    for (const line of describeEvents(info.events ?? [], info.name)) io.out(line)
    return 0
  } finally {
    await conn.close()
  }
}

/**
 * How the app's processes are kept together: "containment cgroup v2 (a cgroup per worker; memory,
 * cpu, pids from cgroup v1)", or the token sweep and why (docs/reliability.md#containment).
 * @param {{ kind: string, reason: string | null, controllers: Record<string, number> }} containment
 */
export function describeContainment ({ kind, reason, controllers }) {
  if (kind === 'token') return `containment token sweep (no cgroups: ${reason}; a process that clears its environment can escape stop)`
  const v1 = Object.entries(controllers).filter(([, version]) => version === 1).map(([name]) => name)
  return `containment ${kind === 'cgroup-v2' ? 'cgroup v2' : 'cgroup v1 freezer'} (a cgroup per worker, ended whole at stop${v1.length > 0 ? `; ${v1.join(', ')} from cgroup v1` : ''})`
}

/**
 * The app's last events (why its workers started, exited, restarted), newest last.
 * @param {import('../../ipc/events.js').SupEvent[]} events
 * @param {string} name
 * @param {number} [now]
 * @returns {string[]}
 */
export function describeEvents (events, name, now = Date.now()) {
  if (events.length === 0) return []
  return ['', `last events (sup events ${name} for more)`, ...events.map((e) => {
    const where = e.id === null ? '' : ` [${e.id}]`
    return `  ${formatDuration(now - e.at).padStart(4)} ago${where} ${e.kind}: ${escapeControls(e.message)}`
  })]
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
 * What the workers run on: "runtime node v22.11.0 /usr/local/bin/node (from .nvmrc)", one line
 * per runtime (two while a reload moves the app to another node).
 * @param {Array<{ runtime?: { kind: string, path: string, version: string, source: string } | null }>} workers
 * @returns {string[]}
 */
export function describeRuntimes (workers) {
  const seen = new Map()
  for (const { runtime } of workers) {
    if (!runtime) continue
    const from = runtime.source === 'default' ? 'the daemon\'s own' : `from ${runtime.source}`
    const line = `runtime ${runtime.kind} ${runtime.version} ${runtime.path} (${from})`
    seen.set(line, (seen.get(line) ?? 0) + 1)
  }
  const lines = [...seen].map(([line, count]) => seen.size > 1 ? `${line}: ${count} worker(s)` : line)
  return lines.length > 0 ? [...lines, ''] : []
}

/**
 * "git main@1a2b3c4d5e6f (git@github.com:acme/api.git) in /srv/api": the revision the workers
 * last started from.
 * @param {{ repo_path: string, branch: string | null, revision: string | null, remote: string | null }} versioning
 */
export function describeVersioning ({ repo_path: top, branch, revision, remote }) {
  const at = `${branch ?? '(detached)'}@${revision ? revision.slice(0, 12) : '(no commit)'}`
  return `revision: git ${at}${remote ? ` (${remote})` : ''} in ${top}`
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
 * The app's probes and what they did to each worker: ready now, liveness restarts and the last reason.
 * @param {any} config
 * @param {any[]} workers
 * @returns {string[]}
 */
export function describeProbes (config, workers, now = Date.now()) {
  const probes = /** @type {const} */ (['readiness', 'liveness']).filter((kind) => config[kind])
  if (probes.length === 0 && !workers.some((w) => w.liveness_restarts > 0)) return []
  const lines = ['', 'probes']
  for (const kind of probes) {
    const p = config[kind]
    const what = p.type === 'http' ? `GET ${p.path}${p.status === null ? '' : ` (expect ${p.status})`}` : p.type === 'tcp' ? 'tcp connect' : `exec ${p.command.join(' ')}`
    const where = p.type === 'exec' ? '' : p.port === null ? ' on the worker\'s port' : ` on port ${p.port}`
    lines.push(`  ${kind.padEnd(9)} ${what}${where} every ${p.period} ms after ${p.initial_delay} ms (timeout ${p.timeout} ms, ${p.failure_threshold} failure(s) to fail, ${p.success_threshold} success(es) to pass)`)
  }
  lines.push(renderTable(['id', 'ready', 'liveness restarts', 'last restart'], workers.map((w) => [
    String(w.id),
    w.ready === null || w.ready === undefined ? '-' : w.ready ? 'yes' : `no${w.probes?.readiness?.last ? ` (${w.probes.readiness.last})` : ''}`,
    String(w.liveness_restarts ?? 0),
    w.last_restart ? `${formatDuration(now - w.last_restart.at)} ago: ${w.last_restart.reason}` : '-'
  ])))
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

/**
 * What the kernel counts in each worker's cgroup, beside its limits (docs/config.md#limits).
 * @param {Array<{ id: number, limits?: Record<string, number | null>, cgroup?: Record<string, number> | null }>} workers
 * @returns {string[]}
 */
export function describeCgroups (workers) {
  const inCgroup = workers.filter((w) => w.cgroup)
  if (inCgroup.length === 0) return []
  const limit = (/** @type {number | null | undefined} */ v, /** @type {(v: number) => string} */ show) => v == null ? 'none' : show(v)
  const { limits = {} } = inCgroup[0]
  return ['', `cgroup (limits per worker: max_memory ${limit(limits.max_memory, formatBytes)}, memory_high ${limit(limits.memory_high, formatBytes)}, cpu_limit ${limit(limits.cpu_limit, (v) => `${v} cores`)}, max_pids ${limit(limits.max_pids, String)})`,
    renderTable(['id', 'memory', 'resident', 'cpu time', 'throttled', 'oom kills', 'processes'], inCgroup.map((w) => {
      const c = /** @type {Record<string, number>} */ (w.cgroup)
      return [String(w.id), formatBytes(c.memory), formatBytes(c.resident), `${c.cpu_seconds.toFixed(1)}s`, `${c.throttled_seconds.toFixed(1)}s (${c.throttled_periods} periods)`, String(c.oom_kills), String(c.processes)]
    }))]
}
