// @ts-check
// A config of many apps goes to the daemon in parts: one app.start takes at most as many apps
// as its schema allows (ipc/methods.js), and one frame at most 16 MiB. Apps come before those
// that depend on them, so every part names only dependencies already registered.
import { METHODS } from '../ipc/methods.js'

/** Apps one app.start request may carry: the schema's own limit. */
export const MAX_APPS_PER_REQUEST = /** @type {{ properties: { apps: { maxItems: number } } }} */ (/** @type {unknown} */ (METHODS['app.start'])).properties.apps.maxItems

/** Bytes of app configs per request, half the frame limit: the caller's env comes along. */
export const MAX_PART_BYTES = 8 * 1024 * 1024

/**
 * The apps in dependency order (stable otherwise), cut into parts of at most
 * MAX_APPS_PER_REQUEST apps and MAX_PART_BYTES of JSON (an app larger than that alone).
 * An app in a dependency cycle keeps its place: the daemon names the cycle.
 * @template {{ name: string, depends_on?: string[] }} T
 * @param {T[]} apps
 * @param {{ maxApps?: number, maxBytes?: number }} [limits]
 * @returns {T[][]}
 */
export function splitIntoParts (apps, { maxApps = MAX_APPS_PER_REQUEST, maxBytes = MAX_PART_BYTES } = {}) {
  if (apps.length <= maxApps && JSON.stringify(apps).length <= maxBytes) return [apps]
  /** @type {T[][]} */
  const parts = []
  /** @type {T[]} */
  let part = []
  let bytes = 0
  for (const app of orderByDependencies(apps)) {
    const size = JSON.stringify(app).length
    if (part.length > 0 && (part.length === maxApps || bytes + size > maxBytes)) {
      parts.push(part)
      part = []
      bytes = 0
    }
    part.push(app)
    bytes += size
  }
  if (part.length > 0) parts.push(part)
  return parts
}

/**
 * Each app after the apps of this list it depends on (Kahn's algorithm, in list order).
 * @template {{ name: string, depends_on?: string[] }} T
 * @param {T[]} apps
 * @returns {T[]}
 */
export function orderByDependencies (apps) {
  const names = new Set(apps.map((a) => a.name))
  const placed = new Set()
  /** @type {T[]} */
  const ordered = []
  let rest = apps
  while (rest.length > 0) {
    const ready = rest.filter((a) => (a.depends_on ?? []).every((d) => !names.has(d) || placed.has(d) || d === a.name))
    // A cycle: what is left keeps its order.
    const next = ready.length > 0 ? ready : rest
    for (const app of next) {
      ordered.push(app)
      placed.add(app.name)
    }
    rest = rest.filter((a) => !placed.has(a.name))
  }
  return ordered
}
