'use strict'
// @ts-check
// The primary's half of @socket.io/cluster-adapter, so that an app using it works unchanged
// under sup: a worker's adapter publishes its broadcasts, room changes and requests to the
// primary over the worker's IPC channel, and the primary passes them on to the app's other
// workers (what the package's own setupPrimary() does in a hand-written primary). Ours differs
// in three ways: messages go only between workers of the same app (one relay serves every app
// of the daemon); what waits to be written to a worker is bounded, and past the bound its
// messages are dropped, not queued (a flooding worker or one that stops reading must not grow
// the daemon's memory); and every message is treated as hostile (checked, size-capped, never
// a throw). CommonJS and dependency-free: the daemon uses it, and so does
// daemon/node-runtime/primary.cjs, which runs on whatever node an app asked for.
// See docs/realtime.md.

/** How @socket.io/cluster-adapter marks its messages (`source`). */
const ADAPTER_SOURCE = '_sio_adapter'

/**
 * The bounds (docs/realtime.md#the-relays-bounds).
 * messageBytes: a message larger than this (as JSON) is refused;
 * backlogBytes: relayed bytes not yet written to one worker; a message that would pass it is dropped for that worker;
 * uidsPerWorker: adapter ids remembered per worker (one per namespace), to route responses;
 * uidLength: longest adapter id taken (the package's are 16 hex digits).
 */
const RELAY_LIMITS = Object.freeze({
  messageBytes: 4 * 1024 * 1024,
  backlogBytes: 8 * 1024 * 1024,
  uidsPerWorker: 64,
  uidLength: 128
})

/**
 * @typedef {{ send: (message: unknown, done: () => void) => void, connected: () => boolean, dropping?: () => void }} Port
 *   how the relay writes to one worker: `done` is called once the message is written (or
 *   failed); `dropping` once, at the first message dropped for it (to say so, once)
 * @typedef {{ group: string, port: Port, uids: Set<string>, backlog: number, dropped: number }} Member
 * @typedef {{ relayed: number, dropped: number, refused: number }} RelayCounts
 *   relayed: messages written to a worker; dropped: not written, the worker's backlog was full;
 *   refused: messages that were not well-formed or too large, relayed to nobody
 * @typedef {{ join: (group: string, port: Port) => Member, leave: (member: Member) => void, receive: (member: Member, message: unknown) => boolean, counts: RelayCounts }} AdapterRelay
 */

/**
 * Whether a worker's message is one of @socket.io/cluster-adapter's.
 * @param {unknown} message
 * @returns {message is Record<string, unknown>}
 */
function isAdapterMessage (message) {
  return message !== null && typeof message === 'object' && !Array.isArray(message) && /** @type {any} */ (message).source === ADAPTER_SOURCE
}

/**
 * @param {Partial<typeof RELAY_LIMITS>} [limits]
 * @returns {AdapterRelay}
 */
function createAdapterRelay (limits = {}) {
  const bounds = { ...RELAY_LIMITS, ...limits }
  /** @type {Map<string, Set<Member>>} the workers of each app (group) */
  const groups = new Map()
  /** @type {RelayCounts} */
  const counts = { relayed: 0, dropped: 0, refused: 0 }

  /** @param {unknown} uid */
  const isUid = (uid) => typeof uid === 'string' && uid.length > 0 && uid.length <= bounds.uidLength

  /**
   * @param {Member} to
   * @param {Record<string, unknown>} message
   * @param {number} bytes
   */
  function write (to, message, bytes) {
    if (!to.port.connected()) return
    if (to.backlog + bytes > bounds.backlogBytes) {
      if (to.dropped++ === 0 && to.port.dropping) {
        try {
          to.port.dropping()
        } catch {}
      }
      counts.dropped++
      return
    }
    to.backlog += bytes
    let settled = false
    const done = () => {
      if (settled) return
      settled = true
      to.backlog -= bytes
    }
    try {
      to.port.send(message, done)
      counts.relayed++
    } catch {
      done()
    }
  }

  /**
   * @param {Member} from
   * @param {Record<string, unknown>} message
   */
  function relay (from, message) {
    const { uid, type, requesterUid } = message
    if (!isUid(uid) || !Number.isInteger(type) || (requesterUid !== undefined && !isUid(requesterUid))) {
      counts.refused++
      return
    }
    const text = JSON.stringify(message)
    const bytes = text === undefined ? Infinity : Buffer.byteLength(text)
    if (bytes > bounds.messageBytes) {
      counts.refused++
      return
    }
    // The sender's adapter ids (one per namespace), so that a response finds its requester.
    if (!from.uids.has(/** @type {string} */ (uid)) && from.uids.size < bounds.uidsPerWorker) from.uids.add(/** @type {string} */ (uid))
    const others = [...(groups.get(from.group) ?? [])].filter((m) => m !== from)
    // A response (fetchSockets, serverSideEmit with an ack, broadcast acks) goes to the worker
    // that asked; when it is not known, to all, whose adapters drop what they did not ask for.
    const requester = typeof requesterUid === 'string' ? others.find((m) => m.uids.has(requesterUid)) : undefined
    for (const to of requester ? [requester] : others) write(to, message, bytes)
  }

  return {
    join (group, port) {
      /** @type {Member} */
      const member = { group, port, uids: new Set(), backlog: 0, dropped: 0 }
      let members = groups.get(group)
      if (members === undefined) groups.set(group, members = new Set())
      members.add(member)
      return member
    },
    leave (member) {
      const members = groups.get(member.group)
      if (members === undefined) return
      members.delete(member)
      if (members.size === 0) groups.delete(member.group)
    },
    // True when the message was the adapter's (relayed or refused here), false when it is
    // someone else's to handle.
    receive (member, message) {
      if (!isAdapterMessage(message)) return false
      try {
        relay(member, message)
      } catch {
        counts.refused++
      }
      return true
    },
    counts
  }
}

module.exports = { ADAPTER_SOURCE, RELAY_LIMITS, createAdapterRelay, isAdapterMessage }
