// @ts-check
// What the agent in a node worker reports each interval (daemon/agent/agent.cjs). The
// message comes from the user's process, so it is read defensively: anything that is not
// a sane number is dropped rather than shown or exported.
import { FROM_AGENT } from '../../ipc/agent-protocol.js'

/**
 * @typedef {object} AgentReport
 * @property {{ p50: number, p99: number, max: number } | null} loop_delay event-loop delay, ms
 * @property {{ used: number, total: number } | null} heap V8 heap, bytes
 * @property {number | null} handles active handles and requests (libuv)
 */

/**
 * @param {unknown} message a `{ sup: 'metrics', ... }` message from the agent
 * @returns {AgentReport | null}
 */
export function readAgentReport (message) {
  if (!message || typeof message !== 'object') return null
  const m = /** @type {Record<string, any>} */ (message)
  if (m.sup !== FROM_AGENT.metrics) return null
  const loop = m.loop && typeof m.loop === 'object' ? m.loop : {}
  const heap = m.heap && typeof m.heap === 'object' ? m.heap : {}
  const p50 = figure(loop.p50)
  const p99 = figure(loop.p99)
  const max = figure(loop.max)
  const used = figure(heap.used)
  const total = figure(heap.total)
  return {
    loop_delay: p50 !== null && p99 !== null && max !== null ? { p50, p99, max } : null,
    heap: used !== null && total !== null ? { used, total } : null,
    handles: figure(m.handles)
  }
}

/** @param {unknown} value */
function figure (value) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null
}
