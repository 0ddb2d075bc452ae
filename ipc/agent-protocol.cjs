'use strict'
// @ts-check
// The protocol between the daemon and its workers' processes, in one table each way: the
// daemon's messages to sup's agent (daemon/agent/agent.cjs, loaded with --require into every
// node worker), the agent's reports, and the two plain strings PM2 apps already speak
// ('ready' from the app with wait_ready, 'shutdown' to it with shutdown_with_message).
// CommonJS and dependency-free, because the agent runs inside the user's process and must stay
// tiny; the daemon require()s it too. Each side handles messages through a table keyed on the
// act, as Node's own cluster does (lib/internal/cluster/primary.js), never by comparing strings
// inline. See docs/architecture.md (agent protocol).
//
// Adding a message: a row in TO_AGENT or FROM_AGENT below, and a handler in the table of the
// side that receives it (the agent's `onDaemon`, the daemon's in daemon/worker/spawn.js). A
// message without a handler on the receiving side is ignored (agent) or passed on as the
// app's own message (daemon), so an older peer never breaks.

/**
 * Messages to the agent carry this `cmd`: one starting with NODE_ arrives as an
 * 'internalMessage', which the app's own process.on('message') never sees.
 */
const AGENT_CMD = 'NODE_SUP'

/** Daemon -> agent, as `{ cmd: AGENT_CMD, act, ...fields }`. */
const TO_AGENT = Object.freeze({
  /** stop taking connections and close idle ones after `idleMs` of quiet; answered by 'drained' */
  drain: 'drain',
  /** the daemon's answer to 'drained' or 'lingering' ({ after }: which), sent behind any connection still on its way; answered by 'synced' with the same { after } */
  sync: 'sync',
  /** decline every connection the primary hands over, until 'open' (wait_ready in cluster mode) */
  gate: 'gate',
  /** take connections again */
  open: 'open',
  /** check one of the worker's own servers for a probe: { seq, type: 'http' | 'tcp', port, path }; answered by 'probed' */
  probe: 'probe',
  /** the answer to 'listen' (routed apps): { seq, key, sockname } or { seq, errno } */
  listened: 'listened',
  /** a connection for a routed server, with its socket as the message's handle: { key, seq, data } (data: the bytes the daemon read, base64); answered by 'took' */
  conn: 'conn'
})

/** Agent -> daemon, as `{ sup: act, ...fields }`. */
const FROM_AGENT = Object.freeze({
  /** a fork-mode worker's first server listens (a cluster primary sees that itself) */
  listening: 'listening',
  /** the figures of one sampling interval: { loop: { p50, p99, max }, heap: { used, total }, handles } */
  metrics: 'metrics',
  /** the worker's servers are closed and its connections gone */
  drained: 'drained',
  /** draining, and every connection left is long-lived (WebSocket, Server-Sent Events), which only the app can end: { connections } */
  lingering: 'lingering',
  /** the answer to 'sync': nothing handed to this worker is left unanswered ({ after }: what the sync answered) */
  synced: 'synced',
  /** the answer to 'probe': { seq, status } (http: the status of the response; tcp: 0 when a server listens) or { seq, error } */
  probed: 'probed',
  /** a routed app's server asks the daemon to listen for it: { seq, address, port, addressType, index }; answered by 'listened' */
  listen: 'listen',
  /** a routed server closed: { key } */
  unlisten: 'unlisten',
  /** the answer to 'conn': { seq, ok } (false: declined, the daemon hands it to another worker) */
  took: 'took',
  /** routed connections that ended since the last report: { n } */
  closed: 'closed',
  /** a socket.io session started in this worker (sticky): { sid } */
  session: 'session'
})

/** The plain strings of PM2's protocol, sent by and to the app itself. */
const APP_MESSAGES = Object.freeze({
  /** the app -> daemon, with wait_ready: it is ready for traffic */
  ready: 'ready',
  /** daemon -> the app, with shutdown_with_message: stop (instead of SIGINT) */
  shutdown: 'shutdown'
})

/**
 * @typedef {keyof typeof TO_AGENT} AgentAct
 * @typedef {keyof typeof FROM_AGENT | 'ready'} WorkerAct what the daemon hears from a worker
 * @typedef {{ cmd: typeof AGENT_CMD, act: AgentAct } & Record<string, unknown>} AgentMessage
 * @typedef {{ sup: keyof typeof FROM_AGENT } & Record<string, unknown>} AgentReport
 * @typedef {Partial<Record<AgentAct, (message: any, handle?: any) => void>>} AgentHandlers the agent's table
 * @typedef {Partial<Record<WorkerAct, (message: any) => void>>} WorkerHandlers the daemon's table
 */

/**
 * A message for the agent.
 * @param {AgentAct} act
 * @param {Record<string, unknown>} [fields] e.g. { idleMs } for 'drain'
 * @returns {AgentMessage}
 */
function toAgent (act, fields) {
  return { ...fields, cmd: AGENT_CMD, act }
}

/**
 * A report from the agent.
 * @param {keyof typeof FROM_AGENT} act
 * @param {Record<string, unknown>} [fields]
 * @returns {AgentReport}
 */
function fromAgent (act, fields) {
  return { ...fields, sup: act }
}

/**
 * The act of a message the agent received, or null when it is not one of the daemon's.
 * @param {unknown} message
 * @returns {AgentAct | null}
 */
function agentActOf (message) {
  if (message === null || typeof message !== 'object') return null
  const { cmd, act } = /** @type {Record<string, unknown>} */ (message)
  return cmd === AGENT_CMD && typeof act === 'string' && Object.hasOwn(TO_AGENT, act) ? /** @type {AgentAct} */ (act) : null
}

/**
 * The act of a message the daemon received from a worker, or null when it is the app's own.
 * @param {unknown} message
 * @returns {WorkerAct | null}
 */
function workerActOf (message) {
  if (message === APP_MESSAGES.ready) return 'ready'
  if (message === null || typeof message !== 'object') return null
  const { sup } = /** @type {Record<string, unknown>} */ (message)
  return typeof sup === 'string' && Object.hasOwn(FROM_AGENT, sup) ? /** @type {keyof typeof FROM_AGENT} */ (sup) : null
}

/**
 * Call the handler for `act`. Returns false when there is none (an unknown act, or one this
 * side does not handle), so the caller decides what an unhandled message means.
 * @template {string} A
 * @param {Partial<Record<A, (message: any, handle?: any) => void>>} handlers
 * @param {A | null} act
 * @param {unknown} message
 * @param {unknown} [handle] a handle that came with it (a routed connection's socket)
 * @returns {boolean}
 */
function dispatch (handlers, act, message, handle) {
  const handler = act !== null && Object.hasOwn(handlers, act) ? handlers[act] : undefined
  if (typeof handler !== 'function') return false
  if (handle === undefined) handler(message)
  else /** @type {(message: unknown, handle: unknown) => void} */ (handler)(message, handle)
  return true
}

module.exports = { AGENT_CMD, TO_AGENT, FROM_AGENT, APP_MESSAGES, toAgent, fromAgent, agentActOf, workerActOf, dispatch }
