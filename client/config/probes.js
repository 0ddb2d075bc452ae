// @ts-check
// `readiness`, `liveness` and `depends_on` of an app entry, as the daemon keeps them
// (docs/probes.md). A probe is one check (http, tcp or exec) and Kubernetes' timing; every
// problem is a SUP_ERR_CONFIG_INVALID_PROBE naming the probe and what to write instead.
import { APP_NAME_PATTERN } from '../../ipc/app-config.js'
import { SupError } from '../../ipc/errors.js'
import { parseDuration } from './read-value.js'

/** Kubernetes' defaults, in ms (daemon/probes/probe.js has the same). */
export const PROBE_TIMING_DEFAULTS = Object.freeze({ initial_delay: 0, period: 10_000, timeout: 1000, failure_threshold: 3, success_threshold: 1 })

const CHECK_KEYS = /** @type {const} */ (['http', 'tcp', 'exec'])
const TIMING_KEYS = /** @type {const} */ (['initial_delay', 'period', 'timeout'])
const COUNT_KEYS = /** @type {const} */ (['failure_threshold', 'success_threshold'])
const HTTP_KEYS = ['path', 'port', 'host', 'status']
const TCP_KEYS = ['port', 'host']

/**
 * @param {unknown} value raw.readiness or raw.liveness
 * @param {'readiness' | 'liveness'} kind
 * @returns {import('../../ipc/app-config.js').ProbeConfig | null}
 */
export function parseProbe (value, kind) {
  if (value == null || value === false) return null
  const fail = (/** @type {string} */ reason) => invalid(kind, value, reason)
  if (typeof value !== 'object' || Array.isArray(value)) fail('use an object such as { http: "/healthz" }, { tcp: 3000 } or { exec: "./check.sh" }')
  const raw = /** @type {Record<string, unknown>} */ (value)
  for (const key of Object.keys(raw)) {
    if (![...CHECK_KEYS, ...TIMING_KEYS, ...COUNT_KEYS].includes(/** @type {any} */ (key))) fail(`unknown key "${key}" (a probe has one of http, tcp, exec, and initial_delay, period, timeout, failure_threshold, success_threshold)`)
  }
  const given = CHECK_KEYS.filter((key) => raw[key] != null)
  if (given.length !== 1) fail(given.length === 0 ? 'say what to check: http, tcp or exec' : `give one of ${given.join(', ')}, not several`)
  const type = given[0]
  /** @type {import('../../ipc/app-config.js').ProbeConfig} */
  const probe = { type, host: '127.0.0.1', port: /** @type {number | null} */ (null), path: '', status: /** @type {number | null} */ (null), command: /** @type {string[]} */ ([]), ...PROBE_TIMING_DEFAULTS }
  if (type === 'http') Object.assign(probe, parseHttp(raw.http, fail))
  else if (type === 'tcp') Object.assign(probe, parseTcp(raw.tcp, fail))
  else probe.command = parseCommand(raw.exec, fail)
  for (const key of TIMING_KEYS) {
    if (raw[key] == null || raw[key] === '') continue
    try {
      probe[key] = parseDuration(raw[key], `${kind}.${key}`)
    } catch {
      fail(`${key} must be milliseconds, or a number with ms, s, m or h (e.g. "5s")`)
    }
  }
  for (const key of COUNT_KEYS) {
    if (raw[key] == null || raw[key] === '') continue
    const n = typeof raw[key] === 'string' && /^\d+$/.test(/** @type {string} */ (raw[key]).trim()) ? Number(raw[key]) : raw[key]
    if (!Number.isInteger(n) || /** @type {number} */ (n) < 1 || /** @type {number} */ (n) > 1000) fail(`${key} must be a whole number from 1 to 1000`)
    probe[key] = /** @type {number} */ (n)
  }
  if (probe.period < 1) fail('period must be at least 1 ms')
  if (probe.timeout < 1) fail('timeout must be at least 1 ms')
  // As in Kubernetes: a liveness probe that passes once is alive again.
  if (kind === 'liveness' && probe.success_threshold !== 1) fail('success_threshold must be 1 for a liveness probe (as in Kubernetes)')
  return probe
}

/**
 * `http: "/healthz"` or `http: { path, port, host, status }`.
 * @param {unknown} value
 * @param {(reason: string) => never} fail
 */
function parseHttp (value, fail) {
  const spec = typeof value === 'string' ? { path: value } : value
  if (spec === null || typeof spec !== 'object' || Array.isArray(spec)) return fail('http takes a path ("/healthz") or { path, port, host, status }')
  const http = /** @type {Record<string, unknown>} */ (spec)
  checkKeys(http, HTTP_KEYS, 'http', fail)
  const path = http.path ?? '/'
  if (typeof path !== 'string' || !path.startsWith('/') || /\s/.test(path)) fail('http.path must start with "/" and have no spaces, e.g. "/healthz"')
  let status = null
  if (http.status != null) {
    status = Number(http.status)
    if (!Number.isInteger(status) || status < 100 || status > 599) fail('http.status must be an HTTP status from 100 to 599 (leave it out to accept any 2xx or 3xx)')
  }
  return { path: /** @type {string} */ (path), status, ...parseAddress(http, 'http', fail) }
}

/**
 * `tcp: 3000`, `tcp: true` (the worker's own port) or `tcp: { port, host }`.
 * @param {unknown} value
 * @param {(reason: string) => never} fail
 */
function parseTcp (value, fail) {
  if (value === true) return {}
  if (typeof value === 'number' || typeof value === 'string') return parseAddress({ port: value }, 'tcp', fail)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return fail('tcp takes a port (3000), true (the worker\'s own port) or { port, host }')
  checkKeys(/** @type {Record<string, unknown>} */ (value), TCP_KEYS, 'tcp', fail)
  return parseAddress(/** @type {Record<string, unknown>} */ (value), 'tcp', fail)
}

/**
 * @param {Record<string, unknown>} spec
 * @param {string} type
 * @param {(reason: string) => never} fail
 * @returns {{ port?: number, host?: string }}
 */
function parseAddress (spec, type, fail) {
  /** @type {{ port?: number, host?: string }} */
  const out = {}
  if (spec.port != null) {
    const port = typeof spec.port === 'string' && /^\d+$/.test(spec.port.trim()) ? Number(spec.port) : spec.port
    if (!Number.isInteger(port) || /** @type {number} */ (port) < 1 || /** @type {number} */ (port) > 65535) fail(`${type}.port must be a port from 1 to 65535`)
    out.port = /** @type {number} */ (port)
  }
  if (spec.host != null) {
    if (typeof spec.host !== 'string' || spec.host === '' || spec.host.length > 255 || /[\s/]/.test(spec.host)) fail(`${type}.host must be a host name or IP address`)
    out.host = /** @type {string} */ (spec.host)
  }
  return out
}

/**
 * `exec: "./check.sh --quick"` (split on spaces, quotes group words) or `exec: ["./check.sh", "--quick"]`.
 * @param {unknown} value
 * @param {(reason: string) => never} fail
 */
function parseCommand (value, fail) {
  const argv = typeof value === 'string' ? value.match(/"[^"]*"|'[^']*'|\S+/g)?.map((w) => w.replace(/^(["'])(.*)\1$/, '$2')) ?? [] : value
  if (!Array.isArray(argv) || argv.length === 0 || !argv.every((a) => typeof a === 'string' || typeof a === 'number')) {
    fail('exec takes a command ("./check.sh --quick") or its words as a list, run without a shell in the app\'s cwd')
  }
  return /** @type {unknown[]} */ (argv).map(String)
}

/**
 * @param {Record<string, unknown>} spec
 * @param {string[]} allowed
 * @param {string} type
 * @param {(reason: string) => never} fail
 */
function checkKeys (spec, allowed, type, fail) {
  for (const key of Object.keys(spec)) if (!allowed.includes(key)) fail(`unknown key "${type}.${key}" (${type} takes ${allowed.join(', ')})`)
}

/**
 * `depends_on`: an app name or a list of them; whether they exist is the daemon's to check.
 * @param {unknown} value
 * @param {string} name the app's own name
 * @returns {string[]}
 */
export function parseDependsOn (value, name) {
  if (value == null || value === '') return []
  const list = typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : value
  const fail = (/** @type {string} */ reason) => {
    throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option: 'depends_on', value: JSON.stringify(value), reason })
  }
  if (!Array.isArray(list)) return fail('use an app name or a list of app names')
  for (const dep of list) {
    if (typeof dep !== 'string' || !APP_NAME_PATTERN.test(dep)) fail(`"${dep}" is not an app name`)
    if (dep === name) fail(`an app cannot depend on itself ("${name}")`)
  }
  return [...new Set(/** @type {string[]} */ (list))]
}

/**
 * @param {'readiness' | 'liveness'} probe
 * @param {unknown} value
 * @param {string} reason
 * @returns {never}
 */
function invalid (probe, value, reason) {
  throw new SupError('SUP_ERR_CONFIG_INVALID_PROBE', { probe, value: JSON.stringify(value) ?? String(value), reason })
}
