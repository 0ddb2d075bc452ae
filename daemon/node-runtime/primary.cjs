'use strict'
// A node:cluster primary run on another node than the daemon's (an app's `interpreter`,
// `.nvmrc`), so that cluster workers run on that node: Node's cluster protocol is between a
// primary and its workers of one version, and only the primary can fork them. The daemon
// starts one per runtime (daemon/node-runtime/primaries.js) and drives it over the IPC
// channel; it forks workers as the daemon's own primary does (daemon/worker/spawn.js) and
// relays what the daemon needs of them: pid, 'listening', their messages (the agent's
// reports, 'ready'), stdout/stderr, exit. Everything else (lifecycle, drain, probes, stats)
// stays in the daemon, except @socket.io/cluster-adapter's messages, which it relays between
// the workers of one app itself (`group`, the app's name; daemon/relay/adapter-relay.cjs), as
// the daemon does for its own workers. CommonJS and dependency-free: it runs on whatever node
// the app asked for.
// Messages, daemon → here: { t: 'fork', w, group, exec, args, execArgv, cwd, env }, { t: 'send', w, m };
// here → daemon: { t: 'hello', version }, { t: 'forked', w, pid }, { t: 'listening', w },
// { t: 'message', w, m }, { t: 'out' | 'err', w, d: base64 }, { t: 'end', w, s }, { t: 'exit', w, code, signal },
// { t: 'relay-dropping', w } (the first adapter message dropped for that worker).
/** @type {import('node:cluster').Cluster} */
const cluster = /** @type {any} */ (require('node:cluster'))
const { createAdapterRelay } = require('../relay/adapter-relay.cjs')

// The daemon's policy (its --balance), fixed before the first fork as Node requires.
cluster.schedulingPolicy = process.argv[2] === 'os' ? cluster.SCHED_NONE : cluster.SCHED_RR

const noop = () => {}
/** @type {Map<number, import('node:cluster').Worker>} */
const workers = new Map()
/** This process's own variables: masked from every worker (cluster.fork lays env over them). */
const ownKeys = Object.keys(process.env)
const relay = createAdapterRelay()

/** @param {Record<string, unknown>} message */
function post (message) {
  if (process.connected && process.send) process.send(message, undefined, {}, noop)
}

/**
 * @param {import('node:stream').Readable | null} stream
 * @param {number} w
 * @param {'out' | 'err'} t
 */
function pipe (stream, w, t) {
  if (!stream) return post({ t: 'end', w, s: t })
  stream.on('data', (chunk) => post({ t, w, d: chunk.toString('base64') }))
  stream.on('end', () => post({ t: 'end', w, s: t }))
  stream.on('error', noop)
}

/** The daemon's messages, by their `t`. */
const handlers = {
  /** @param {any} message */
  fork ({ w, group, exec, args, execArgv, cwd, env, uid, gid }) {
    // uid/gid: the app runs as another user (a root daemon; daemon/worker/run-as.js)
    cluster.setupPrimary({ exec, args, execArgv, cwd, silent: true, ...(uid === undefined ? {} : { uid, gid }) })
    /** @type {Record<string, string | undefined>} */
    const masked = {}
    for (const key of ownKeys) masked[key] = undefined
    let worker
    try {
      worker = cluster.fork(Object.assign(masked, env))
    } catch {
      return post({ t: 'exit', w, code: 127, signal: null })
    }
    const child = worker.process
    if (child.pid === undefined) {
      // spawn failed (a cwd gone, EAGAIN): 'error' comes instead of 'exit'.
      child.once('error', () => post({ t: 'exit', w, code: 127, signal: null }))
      return
    }
    workers.set(w, worker)
    post({ t: 'forked', w, pid: child.pid })
    pipe(child.stdout, w, 'out')
    pipe(child.stderr, w, 'err')
    // Without a group (a daemon that gave none), a worker relays to nobody.
    const member = relay.join(typeof group === 'string' ? group : `#${w}`, {
      send: (/** @type {any} */ m, /** @type {() => void} */ done) => worker.send(m, undefined, done),
      connected: () => worker.isConnected(),
      dropping: () => post({ t: 'relay-dropping', w })
    })
    worker.on('listening', () => post({ t: 'listening', w }))
    worker.on('message', (/** @type {unknown} */ m) => { if (!relay.receive(member, m)) post({ t: 'message', w, m }) })
    worker.on('exit', (/** @type {number | null} */ code, /** @type {string | null} */ signal) => {
      relay.leave(member)
      workers.delete(w)
      post({ t: 'exit', w, code, signal })
    })
    // A worker whose channel breaks is still watched through its 'exit'.
    worker.on('error', noop)
  },
  /** @param {any} message */
  send ({ w, m }) {
    const worker = workers.get(w)
    if (worker && worker.isConnected()) worker.send(m, undefined, noop)
  }
}

process.on('message', (/** @type {any} */ message) => {
  const t = message !== null && typeof message === 'object' ? message.t : null
  if (typeof t === 'string' && Object.hasOwn(handlers, t)) handlers[/** @type {keyof typeof handlers} */ (t)](message)
})
// The daemon stops workers itself; a signal to the process group (Ctrl-C on a foreground
// sup-runtime) must not take this primary, and every worker with it, from under the daemon.
process.on('SIGINT', noop)
process.on('SIGTERM', noop)
// The daemon has gone (or let this primary go): the workers' channels close with this
// process, and node:cluster workers exit when theirs closes.
process.on('disconnect', () => process.exit(0))
post({ t: 'hello', version: process.version })
