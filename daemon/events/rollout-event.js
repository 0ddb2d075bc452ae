// @ts-check
// A rollout's beginning and end (reload, scale, a graceful replace) as journal events; the
// steps between are the workers' own events (started, online, exited when asked to stop).

/**
 * @param {import('../../ipc/events.js').ReloadProgressEvent} progress
 * @returns {import('./journal.js').EventInput | null}
 */
export function rolloutEvent (progress) {
  const base = { app: progress.name, id: null, instance: null, at: progress.at }
  if (progress.phase === 'begin' && progress.op === 'reload') {
    const how = progress.strategy === 'rolling' ? `one at a time (surge ${progress.surge}, unavailable ${progress.maxUnavailable})` : 'all at once (stop, then start)'
    const moved = progress.node ? `, moving to node ${progress.node.version}` : ''
    return { ...base, kind: 'reload', level: 'info', message: `reload of ${progress.workers} worker(s) begins, ${how}${moved}`, data: { phase: 'begin', strategy: progress.strategy, workers: progress.workers } }
  }
  if (progress.phase === 'begin' && progress.op === 'scale') {
    return { ...base, kind: 'scale', level: 'info', message: `scaling from ${progress.from} to ${progress.to} worker(s)`, data: { phase: 'begin', from: progress.from, to: progress.to } }
  }
  if (progress.phase !== 'end') return null
  const kind = progress.op === 'scale' ? 'scale' : 'reload'
  const what = progress.op === 'replace' ? 'replacement' : progress.op
  const counts = `${progress.started.length} started, ${progress.retired.length} retired${progress.failed.length ? `, ${progress.failed.length} failed` : ''}`
  const aborted = progress.outcome === 'aborted'
  const message = aborted
    ? `${what} aborted after ${progress.ms} ms: ${progress.reason ?? 'a new worker did not become ready'}; the old workers keep serving (${counts})`
    : `${what} done in ${progress.ms} ms: ${progress.outcome}${progress.reason ? ` (${progress.reason})` : ''} (${counts})`
  return { ...base, kind, level: aborted ? 'error' : 'info', message, data: { phase: 'end', outcome: progress.outcome, reason: progress.reason, code: progress.code, ms: progress.ms } }
}
