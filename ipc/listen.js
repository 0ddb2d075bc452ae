// @ts-check
// The `listen` setting: sockets the daemon binds itself and hands to every generation of a
// fork-mode app (docs/reload.md#fork-mode). Shared by the CLI, which checks and canonicalises
// the setting, and the daemon, which binds what it says. Dependency-free.

/**
 * @typedef {{ kind: 'tcp', host: string | null, port: number, name: string }} TcpListen
 *   host null: every interface (IPv6 and IPv4 where the system allows)
 * @typedef {{ kind: 'unix', path: string, name: string }} UnixListen
 * @typedef {TcpListen | UnixListen} ListenSpec
 */

/** Most sockets one app may ask for; systemd has no lower limit, this keeps the env small. */
export const MAX_LISTEN = 64

/**
 * Parse one entry: 3000, "3000", "127.0.0.1:8080", "[::1]:8080", ":8080", "unix:/run/app.sock".
 * Relative unix paths resolve against `cwd` when given (the CLI passes the app's cwd; the
 * daemon only ever sees absolute ones).
 * @param {unknown} value
 * @param {(path: string) => string} [resolvePath]
 * @returns {ListenSpec | { error: string }}
 */
export function parseListenEntry (value, resolvePath = (p) => p) {
  if (typeof value === 'number') return tcp(null, value)
  if (typeof value !== 'string' || value.trim() === '') return { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }
  const text = value.trim()
  if (text.startsWith('unix:')) {
    const path = text.slice('unix:'.length)
    if (path === '') return { error: 'a unix socket needs a path, as in "unix:/run/app.sock"' }
    if (path.includes('\0')) return { error: 'a unix socket path cannot contain a NUL byte' }
    const full = resolvePath(path)
    // sockaddr_un holds 107 bytes and a NUL on Linux (103 on macOS).
    if (Buffer.byteLength(full) > 103) return { error: `the socket path ${full} is longer than the 103 bytes a unix socket address holds` }
    return { kind: 'unix', path: full, name: `unix:${full}` }
  }
  if (/^\d+$/.test(text)) return tcp(null, Number(text))
  const bracketed = /^\[([^\]]+)\]:(\d+)$/.exec(text)
  if (bracketed) return tcp(bracketed[1], Number(bracketed[2]))
  const colon = text.lastIndexOf(':')
  if (colon === -1 || !/^\d+$/.test(text.slice(colon + 1))) return { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }
  const host = text.slice(0, colon)
  if (host.includes(':')) return { error: 'write an IPv6 address in brackets, as in "[::1]:8080"' }
  return tcp(host === '' ? null : host, Number(text.slice(colon + 1)))
}

/**
 * Parse the whole setting: one entry or a list (a comma-separated string from --listen).
 * @param {unknown} value
 * @param {(path: string) => string} [resolvePath]
 * @returns {ListenSpec[] | { error: string, entry: unknown }}
 */
export function parseListen (value, resolvePath) {
  if (value == null || value === '') return []
  const entries = Array.isArray(value)
    ? value
    : typeof value === 'string' ? value.split(',').map((s) => s.trim()).filter(Boolean) : [value]
  if (entries.length > MAX_LISTEN) return { error: `at most ${MAX_LISTEN} sockets per app`, entry: value }
  /** @type {ListenSpec[]} */
  const specs = []
  for (const entry of entries) {
    const spec = parseListenEntry(entry, resolvePath)
    if ('error' in spec) return { error: spec.error, entry }
    if (specs.some((s) => clash(s, spec))) return { error: `${spec.name} is listed twice`, entry }
    specs.push(spec)
  }
  return specs
}

/**
 * Two entries that would bind the same address. A port on every interface clashes with the
 * same port on one of them.
 * @param {ListenSpec} a
 * @param {ListenSpec} b
 */
function clash (a, b) {
  if (a.kind === 'unix' || b.kind === 'unix') return a.kind === b.kind && a.name === b.name
  return a.port === b.port && (a.host === b.host || a.host === null || b.host === null)
}

/**
 * @param {string | null} host
 * @param {number} port
 * @returns {TcpListen | { error: string }}
 */
function tcp (host, port) {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return { error: 'the port must be a number from 1 to 65535' }
  const name = host === null ? String(port) : host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
  return { kind: 'tcp', host, port, name }
}
