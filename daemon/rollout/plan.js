// @ts-check
// The rolling-replacement rule, as a pure function: given which old workers still serve and
// which new ones are up or on their way, what to start and what to retire next. The same
// rule drives reload, scale and the replacement of one worker. Like a Kubernetes rolling
// update: at most `surge` workers above the target count, at most `maxUnavailable` below it.

/**
 * @typedef {object} OldWorker a worker the rollout will retire
 * @property {number} id
 * @property {number} instance
 * @property {boolean} serving online: it counts toward the app's capacity and gets drained
 *
 * @typedef {object} RollState
 * @property {OldWorker[]} old old workers not retired yet
 * @property {number[]} instances instance numbers the new workers must end up holding
 * @property {number[]} ready instances held by new workers that are ready
 * @property {number[]} starting instances held by new workers on their way up
 *
 * @typedef {object} RollLimits
 * @property {number} surge how many workers may run above the target count (>= 0)
 * @property {number} maxUnavailable how many fewer ready workers than the target are tolerated (>= 0)
 *
 * @typedef {object} RollStep
 * @property {number[]} start instances to start a new worker for, now
 * @property {number[]} retire ids of old workers to retire, now (after the starts)
 * @property {boolean} done nothing is left to start, wait for or retire
 */

/** Reload defaults (design §4): one extra worker at a time, never below capacity. */
export const DEFAULT_LIMITS = Object.freeze({ surge: 1, maxUnavailable: 0 })

/**
 * The next step of a rollout.
 * @param {RollState} state
 * @param {RollLimits} limits
 * @returns {RollStep}
 */
export function planRollStep (state, limits) {
  const held = new Set([...state.ready, ...state.starting])
  const pending = state.instances.filter((i) => !held.has(i)).sort((a, b) => a - b)
  const serving = state.old.filter((w) => w.serving)
  const desired = state.instances.length

  const room = desired + limits.surge - (serving.length + state.ready.length + state.starting.length)
  const start = pending.slice(0, Math.max(0, room))

  // Old workers that do not serve (stopped, crashed, errored) hold no capacity: retire them now.
  const idle = state.old.filter((w) => !w.serving).map((w) => w.id)
  const spare = serving.length + state.ready.length - (desired - limits.maxUnavailable)
  const retire = [...idle, ...pickRetirees(serving, spare, state)]

  const done = state.old.length === 0 && pending.length === 0 && state.starting.length === 0
  return { start, retire, done }
}

/**
 * Which serving old workers go first: those whose instance a ready new worker has taken over,
 * then those the new set has no place for (highest first), then those whose replacement is
 * starting, then the lowest instance.
 * @param {OldWorker[]} serving
 * @param {number} count
 * @param {RollState} state
 * @returns {number[]} ids
 */
function pickRetirees (serving, count, state) {
  if (count <= 0) return []
  const ready = new Set(state.ready)
  const wanted = new Set(state.instances)
  const starting = new Set(state.starting)
  /** @param {OldWorker} w */
  const rank = (w) => ready.has(w.instance) ? 0 : !wanted.has(w.instance) ? 1 : starting.has(w.instance) ? 2 : 3
  return [...serving]
    .sort((a, b) => rank(a) - rank(b) || (rank(a) === 1 ? b.instance - a.instance : a.instance - b.instance) || a.id - b.id)
    .slice(0, count)
    .map((w) => w.id)
}

/**
 * Check surge and max-unavailable before a rollout starts; returns the problem, or null.
 * @param {RollLimits} limits
 * @returns {string | null}
 */
export function checkLimits ({ surge, maxUnavailable }) {
  if (!Number.isInteger(surge) || surge < 0) return `surge must be a whole number >= 0, got ${surge}`
  if (!Number.isInteger(maxUnavailable) || maxUnavailable < 0) return `max unavailable must be a whole number >= 0, got ${maxUnavailable}`
  if (surge === 0 && maxUnavailable === 0) return 'surge and max unavailable cannot both be 0: nothing could be replaced'
  return null
}

/**
 * The instance numbers to give `count` new workers: the lowest ones nobody holds.
 * @param {number[]} taken
 * @param {number} count
 * @returns {number[]}
 */
export function freeInstances (taken, count) {
  const used = new Set(taken)
  const out = []
  for (let i = 0; out.length < count; i++) if (!used.has(i)) out.push(i)
  return out
}

/**
 * Parse a scale request: "4" sets the count, "+2" and "-1" change it.
 * @param {string} spec
 * @param {number} current
 * @returns {{ to: number } | { error: string }}
 */
export function resolveScale (spec, current) {
  const match = /^([+-]?)(\d{1,4})$/.exec(spec.trim())
  if (!match) return { error: 'use a number (4), or a change (+2, -1)' }
  const n = Number(match[2])
  const to = match[1] === '+' ? current + n : match[1] === '-' ? current - n : n
  if (to < 1) return { error: `that leaves ${to} workers; an app keeps at least 1 (sup stop stops it)` }
  if (to > 1024) return { error: `that makes ${to} workers; at most 1024` }
  return { to }
}
