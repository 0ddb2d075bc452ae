// @ts-check
// What each topic of the daemon's event stream carries (`subscribe`, design §5): one typedef
// per topic, for the daemon that publishes them and the clients that read them (sup start,
// logs, reload, scale, monit). Types only; the topic names are TOPICS in ./methods.js.

/**
 * @typedef {import('./methods.js').WorkerRow} WorkerRow
 *
 * @typedef {object} LogEvent topic `log`: one line of a worker's output
 * @property {number} time ms since the epoch, when the daemon read it
 * @property {string} app
 * @property {number} id worker id
 * @property {number} instance
 * @property {'out' | 'err' | 'sup'} stream sup: the supervisor's line about the worker (an exit, a restart, a kill)
 * @property {string} line without its newline
 *
 * @typedef {Omit<WorkerRow, 'status'> & { status: WorkerRow['status'] | 'deleted' }} AppStateEvent
 *   topic `app.state`: a worker's row after any change; `deleted` once it is gone for good
 *
 * @typedef {object} SampleFigures what a sample adds to the row
 * @property {number | null} time ms since the epoch of the sample; null before the first
 * @property {number} cpu_seconds CPU time of the worker's process tree
 * @property {number} processes processes in the tree
 * @property {{ p50: number, p99: number, max: number } | null} loop_delay ms, from the agent (node workers)
 * @property {{ used: number, total: number } | null} heap bytes, from the agent
 * @property {number | null} handles active handles and requests, from the agent
 *
 * @typedef {WorkerRow & SampleFigures} MetricsEvent topic `metrics`: one worker's sample
 *
 * @typedef {{ id: number, instance: number, pid: number | null }} WorkerRef a worker a rollout started or retired
 *
 * @typedef {object} RolloutSummary how a reload or scale ended (`sup describe` shows the last one)
 * @property {'reload' | 'scale' | 'replace'} op
 * @property {'rolling' | 'restart'} strategy
 * @property {'reloaded' | 'restarted' | 'scaled' | 'unchanged' | 'aborted' | 'started'} outcome started: a config file's app that was not running
 * @property {string | null} reason
 * @property {WorkerRef[]} started
 * @property {WorkerRef[]} retired
 * @property {WorkerRef[]} failed
 * @property {number} at ms since the epoch, when it ended
 * @property {number} ms how long it took
 *
 * @typedef {RolloutSummary & { name: string, code: string | null }} RolloutOutcome one app's result of app.reload / app.scale
 *
 * @typedef {{ name: string, op: 'reload' | 'scale' | 'replace', at: number }} ProgressBase
 * @typedef {Omit<ProgressBase, 'op'> & { op: 'reload', phase: 'begin', strategy: 'rolling' | 'restart', workers: number, surge: number, maxUnavailable: number, config: boolean, env: boolean, node?: { version: string, path: string } }} ReloadBegin
 *   node: set when a cluster app moves to another node, which makes the reload a restart
 * @typedef {Omit<ProgressBase, 'op'> & { op: 'scale', phase: 'begin', from: number, to: number }} ScaleBegin
 * @typedef {ProgressBase & WorkerRef & { phase: 'start', total: number }} ProgressStart a new worker was spawned
 * @typedef {ProgressBase & WorkerRef & { phase: 'ready', ready: number, total: number, retiring: WorkerRef[] }} ProgressReady
 * @typedef {ProgressBase & { phase: 'retire', retiring: WorkerRef[] }} ProgressRetire
 * @typedef {ProgressBase & WorkerRef & { phase: 'retired', ms: number }} ProgressRetired an old worker is gone
 * @typedef {ProgressBase & WorkerRef & { phase: 'lingering', connections: number }} ProgressLingering a retiring worker's drain
 *   has left only long-lived connections (WebSocket, SSE): it is told to shut down now
 * @typedef {ProgressBase & Omit<RolloutSummary, 'at'> & { phase: 'end', code: string | null }} ProgressEnd
 * @typedef {ReloadBegin | ScaleBegin | ProgressStart | ProgressReady | ProgressRetire | ProgressRetired | ProgressLingering | ProgressEnd} ReloadProgressEvent
 *   topic `reload.progress`: each step of a rollout, as it happens
 *
 * @typedef {'spawned' | 'online' | 'exited' | 'restarting' | 'crash-loop' | 'not-restarting' | 'killed' | 'drain-timeout'
 *   | 'ready-timeout' | 'lingering' | 'relay-drop' | 'liveness' | 'spawn-error' | 'stop' | 'delete' | 'restart' | 'watch' | 'cron' | 'memory-limit' | 'oom'
 *   | 'reload' | 'scale'} EventKind what the event is about (docs/events.md lists each)
 * @typedef {object} SupEvent topic `event`: one supervisor decision and its reason (`sup events`, docs/events.md)
 * @property {number} seq increasing, also across daemon restarts
 * @property {number} at ms since the epoch
 * @property {EventKind | string} kind
 * @property {'info' | 'warn' | 'error'} level
 * @property {string} app
 * @property {number | null} id the worker's id, null for an app-wide event (reload, scale)
 * @property {number | null} instance
 * @property {string} message one line for people: what happened and why ("exited with code 3; restarting in 100 ms")
 * @property {Record<string, unknown>} data the same for machines (code, signal, delay, attempt, retry_at, reason, ...)
 *
 * @typedef {{ log: LogEvent, 'app.state': AppStateEvent, metrics: MetricsEvent, 'reload.progress': ReloadProgressEvent, event: SupEvent }} EventsByTopic
 *
 * @typedef {keyof EventsByTopic} Topic
 * @typedef {{ [T in Topic]?: (data: EventsByTopic[T]) => void }} TopicHandlers a handler per topic (Connection.onEvents)
 */

export {}
