// @ts-check
// One registry of every error sup can report. Each code maps to a message template
// whose {placeholders} are filled from `details`; docs/errors.md lists every code and a
// test keeps the two in step. The codes are a type (ErrorCode): `new SupError('SUP_ERR_…')`
// or `err.code === 'SUP_ERR_…'` with a code not in this table fails `npm run typecheck`.

import { escapeControls } from './terminal-text.js'

/** @typedef {{ message: string, exitCode?: number }} ErrorEntry */

/** @satisfies {Record<string, ErrorEntry>} */
export const ERRORS = Object.freeze({
  SUP_ERR_IPC_BAD_MESSAGE: { message: 'malformed message: {reason}' },
  SUP_ERR_IPC_UNKNOWN_METHOD: { message: 'unknown method "{method}"' },
  SUP_ERR_IPC_INVALID_PARAMS: { message: 'invalid params for {method}: {reason}' },
  SUP_ERR_IPC_VERSION_MISMATCH: { message: 'the running daemon speaks protocol {daemon}, this CLI speaks {client} (run "sup kill" to restart the daemon)' },
  SUP_ERR_IPC_CONNECTION_LOST: { message: 'lost the connection to the daemon ({reason})' },
  SUP_ERR_IPC_SUBSCRIBER_TOO_SLOW: { message: 'the daemon dropped this stream because it was read too slowly and fell too far behind (filter it to fewer apps, or read it faster)' },
  SUP_ERR_IPC_FRAME_TOO_LARGE: { message: 'the daemon closed the connection: a message was larger than it accepts (16 MiB; {reason}); send fewer or smaller apps, env values or args at a time' },
  SUP_ERR_IPC_TOO_MANY_CONNECTIONS: { message: 'the daemon refused the connection: it already has as many open as it allows (1024); some program is holding connections to its socket' },
  SUP_ERR_IPC_TOO_MANY_REQUESTS: { message: 'too many requests under way on this connection (at most {limit}): wait for answers before sending more' },
  SUP_ERR_IPC_CLIENT_TOO_SLOW: { message: 'the daemon closed the connection because its answers were not being read (more than 16 MiB waited)' },
  SUP_ERR_IPC_TIMEOUT: { message: 'the daemon did not answer {method} within {ms} ms' },
  SUP_ERR_DAEMON_UNREACHABLE: { message: 'no daemon is running for {home} (any "sup start" starts one)' },
  SUP_ERR_DAEMON_ACCESS_DENIED: { message: 'the daemon of {home} belongs to another user, and its socket lets only that user in (run sup as that user, or set SUP_HOME to a folder of your own)' },
  SUP_ERR_DAEMON_START_FAILED: { message: 'the daemon failed to start: {reason} (see {log})' },
  SUP_ERR_DAEMON_ALREADY_RUNNING: { message: 'a daemon is already running for {home} (pid {pid})' },
  SUP_ERR_DAEMON_SHUTTING_DOWN: { message: 'the daemon is shutting down; try again in a moment' },
  SUP_ERR_DAEMON_BALANCE_MISMATCH: { message: 'the daemon for {home} balances connections with "{daemon}", fixed when it started; for "{wanted}" run "sup kill", then start again with --balance {wanted}' },
  SUP_ERR_DAEMON_WAIT_TIMEOUT: { message: 'gave up waiting for {what} after {ms} ms' },
  SUP_ERR_HOME_NOT_OWNED: { message: 'SUP_HOME {home} belongs to {owner}, not to {user}, and sup runs only in a home of its own user: {fix}' },
  SUP_ERR_HOME_UNSAFE_MODE: { message: 'SUP_HOME {home} can be written by other users (mode {mode}), who could plant files sup would run (chmod 700 {home}, or set SUP_HOME to a folder of your own)' },
  SUP_ERR_HOME_NOT_DIRECTORY: { message: 'SUP_HOME {home} is {what}, not a directory of its own: sup keeps its files only in a real directory (remove it, or set SUP_HOME to another path)' },
  SUP_ERR_HOME_NOT_WRITABLE: { message: 'cannot create SUP_HOME {home}: {reason} (set SUP_HOME to a folder you can write, or create it: mkdir -m 700 {home})' },
  SUP_ERR_HOME_PATH_TOO_LONG: { message: 'SUP_HOME {home} is too long: its socket path would be {length} bytes, and a unix socket path takes at most {max} here (set SUP_HOME to a path of at most {room} bytes)' },
  SUP_ERR_HOME_SOCKET_UNSAFE: { message: 'refusing to connect to {socket}: it is {what}, not a socket of this user\'s daemon, so nothing was sent to it (remove it, or set SUP_HOME to a folder of your own)' },
  SUP_ERR_HOME_FILE_UNSAFE: { message: 'refusing to use {file}: it is {what}, not a file sup made (remove it; someone may have planted it)' },
  SUP_ERR_APP_NOT_FOUND: { message: 'app "{target}" not found (sup ls lists apps)' },
  SUP_ERR_APP_NONE: { message: 'there are no apps, so "all" names nothing (sup start adds one)' },
  SUP_ERR_APP_NO_MATCH: { message: 'no app name matches {target} (sup ls lists apps)' },
  SUP_ERR_APP_TARGET_INVALID: { message: 'invalid target {target}: {reason} (a regex target is /pattern/, e.g. /^api-/)' },
  SUP_ERR_APP_USER_UNKNOWN: { message: 'app "{name}": {key} "{value}" names no user or group of this machine (getent passwd / getent group list them; a number works too)' },
  SUP_ERR_APP_USER_NOT_ROOT: { message: 'app "{name}" is set to run as "{user}", but this daemon is not root and cannot change user (run sup as root, or drop uid/gid from the app)' },
  SUP_ERR_APP_LIMIT_UNSUPPORTED: { message: 'app "{name}" sets {key}, which this daemon cannot enforce: {reason} (run the daemon as root on Linux with cgroups, or remove {key})' },
  SUP_ERR_APP_LIMITS_CONFLICT: { message: 'app "{name}": memory_high ({high} bytes) is not below max_memory ({max} bytes), so it would never act before the OOM kill (lower memory_high, or remove it)' },
  SUP_ERR_APP_ALREADY_EXISTS: { message: 'app "{name}" already exists (sup restart {name}, or start it with another --name)' },
  SUP_ERR_APP_RENAME_MANY: { message: 'cannot rename {count} apps to "{name}": --name renames one app (name one app or one of its workers)' },
  SUP_ERR_APP_NAME_INVALID: { message: 'app name "{name}" is not allowed: use letters, digits, ".", "_" and "-", not starting with "." or "-", at most 64 characters' },
  SUP_ERR_APP_SIGNAL_INVALID: { message: 'unknown signal "{signal}" (try SIGUSR2, SIGHUP or SIGTERM)' },
  SUP_ERR_APP_FORCE_MISMATCH: { message: 'app "{name}" already runs with another {keys}: -f adds workers to it only for the same script and options (start the copy with another --name)' },
  SUP_ERR_APP_SCALE_INVALID: { message: 'cannot scale "{name}" to "{value}": {reason}' },
  SUP_ERR_APP_DEPENDENCY_UNKNOWN: { message: 'app "{name}" depends on "{dependency}", which is neither running nor started with it (start "{dependency}" first, or in the same config file)' },
  SUP_ERR_APP_DEPENDENCY_CYCLE: { message: 'depends_on goes round in a circle: {cycle} (remove one of these dependencies)' },
  SUP_ERR_RELOAD_IN_PROGRESS: { message: 'a {op} of app "{name}" is already running (wait for it to end; sup describe {name} shows how the last one ended)' },
  SUP_ERR_RELOAD_ABORTED: { message: '{op} aborted: {reason}' },
  SUP_ERR_RELOAD_INVALID_LIMITS: { message: 'invalid reload limits: {reason}' },
  SUP_ERR_LISTEN_FAILED: { message: 'cannot listen on {address} for app "{name}": {reason}' },
  SUP_ERR_CONFIG_SCRIPT_NOT_FOUND: { message: 'script "{script}" not found (looked in {cwd})' },
  SUP_ERR_CONFIG_SCRIPT_UNREADABLE: { message: 'app "{name}" cannot start: its script {script} cannot be read ({reason}); give the user sup runs as read access (chmod u+r {script})' },
  SUP_ERR_CONFIG_SCRIPT_NOT_EXECUTABLE: { message: 'app "{name}" cannot start: {script} cannot be executed ({reason}); make it executable (chmod u+x {script}) or name an interpreter' },
  SUP_ERR_CONFIG_SCRIPT_IS_DIRECTORY: { message: '"{script}" is a directory: name the file to run, e.g. {script}/index.js' },
  SUP_ERR_CONFIG_INVALID_INSTANCES: { message: 'invalid instance count "{value}": instances must be a number, "max", 0 (= max) or -N (CPUs minus N)' },
  SUP_ERR_CONFIG_INVALID_OPTION: { message: 'invalid {option} "{value}": {reason}' },
  SUP_ERR_CONFIG_INVALID_PROBE: { message: 'invalid {probe} probe {value}: {reason} (docs/probes.md)' },
  SUP_ERR_CONFIG_FILE_NOT_FOUND: { message: 'config file "{file}" not found' },
  SUP_ERR_CONFIG_FILE_SYNTAX: { message: 'config file {file}{where} could not be read: {reason}' },
  SUP_ERR_CONFIG_MODULE_NOT_FOUND: { message: '{file}: cannot load module \'{module}\' ({fix})' },
  SUP_ERR_CONFIG_FILE_TOO_LARGE: { message: 'config file {file} is {size} bytes, more than the {limit} sup reads (split its apps over several files)' },
  SUP_ERR_CONFIG_FILE_NO_APPS: { message: 'config file {file} has no apps (export { apps: [ { name, script } ] })' },
  SUP_ERR_CONFIG_WRITE_FAILED: { message: 'cannot write {file}: {reason} (check the permissions of the current directory)' },
  SUP_ERR_CONFIG_ONLY_NO_MATCH: { message: '--only {only} matches no app in {file} (it has: {names})' },
  SUP_ERR_CONFIG_INVALID_BALANCE: { message: 'invalid {source} "{value}" (use "rr": the daemon hands connections out round-robin, or "os": workers accept them themselves; for one app, --balance least-conn)' },
  SUP_ERR_CONFIG_ROUTING_RUNTIME: { message: 'app "{name}" runs on {runtime}, whose cluster primary cannot route connections (sticky, balance least-conn); run it on the daemon\'s node {daemon}, or without sticky and least-conn' },
  SUP_ERR_CONFIG_CWD_NOT_FOUND: { message: 'working directory "{cwd}" does not exist' },
  SUP_ERR_INTERPRETER_NOT_FOUND: { message: 'no {runtime} for app "{name}": {fix}' },
  SUP_ERR_INTERPRETER_NOT_EXECUTABLE: { message: 'interpreter {path} of app "{name}" {reason} (give the path of a node binary, or node@<major> such as node@22)' },
  SUP_ERR_INTERPRETER_VERSION_INVALID: { message: '{source} of app "{name}" asks for node "{value}", which is not a version sup can find (write a version such as 22 or 22.11.0, or set interpreter)' },
  SUP_ERR_LOG_UNWRITABLE: { message: 'cannot write log file {path}: {reason}; its lines are dropped until it can be written (fix the path or its folder\'s permissions)' },
  SUP_ERR_LOG_DISK_FULL: { message: 'cannot write log file {path}: {reason}; its lines are dropped until there is space (free some, or lower log_max_size / log_retain)' },
  SUP_ERR_CRON_INVALID_EXPRESSION: { message: 'invalid cron_restart "{value}": {reason} (use 5 fields "minute hour day month weekday", or 6 with seconds first, e.g. "0 3 * * *")' },
  SUP_ERR_WATCH_PATH_NOT_FOUND: { message: 'watch path "{path}" does not exist (watch paths are relative to the app\'s cwd, {cwd})' },
  SUP_ERR_WATCH_FAILED: { message: 'cannot watch {path} for changes: {reason}; the app is not restarted on changes (narrow watch, add ignore_watch, or raise fs.inotify.max_user_watches)' },
  SUP_ERR_LOG_ROTATE_FAILED: { message: 'cannot rotate log file {path}: {reason}; it grows past its size limit until a rename works (check its folder\'s permissions)' },
  SUP_ERR_DUMP_CORRUPT: { message: 'the dump {file} cannot be read: {reason}' },
  SUP_ERR_DUMP_WRITE_FAILED: { message: 'cannot write {file}: {reason} (check free space and the permissions of {dir})' },
  SUP_ERR_DUMP_EMPTY_OVERWRITE: { message: 'no apps to save, and {file} holds {count} app(s): "sup resurrect" brings them back, "sup save --force" saves the empty list over them' },
  SUP_ERR_DUMP_DISABLED: { message: 'this daemon keeps no dump (it is a sup-runtime in the foreground, whose apps come from its command line)' },
  SUP_ERR_STARTUP_UNSUPPORTED: { message: 'startup system "{platform}" is not supported: sup writes systemd units (sup startup systemd)' },
  SUP_ERR_STARTUP_USER_NOT_FOUND: { message: 'user "{user}" not found (give an existing account with --user)' },
  SUP_ERR_STARTUP_WRITE_FAILED: { message: 'cannot write {file}: {reason} (run as root, or pick another --unit-dir)' },
  SUP_ERR_STARTUP_NEEDS_ROOT: { message: 'removing {file} needs root: run {command}' },
  SUP_ERR_STARTUP_UNSAFE_VALUE: { message: 'cannot write {key} of {owner} into a systemd unit: "{value}" {reason}; {fix}, then run sup startup again' },
  SUP_ERR_STARTUP_COMMAND_FAILED: { message: '"{command}" failed: {reason}' },
  SUP_ERR_RUNTIME_APP_ERRORED: { message: '{workers} errored (a crash loop): sup-runtime stops every app and exits 1, so the orchestrator restarts it (the lines above show why)' },
  SUP_ERR_RUNTIME_APPS_FAILED: { message: 'every app has stopped, and {workers} failed: sup-runtime exits 1' },
  SUP_ERR_METRICS_INTERVAL_INVALID: { message: 'invalid sample interval "{value}": use milliseconds from 100 to 3600000, or 0 to turn sampling off (--sample-interval / SUP_SAMPLE_INTERVAL)' },
  SUP_ERR_METRICS_PORT_INVALID: { message: 'invalid metrics port "{value}": use a number from 1 to 65535' },
  SUP_ERR_METRICS_PORT_IN_USE: { message: 'cannot serve metrics on {host}:{port}: the port is in use (pick another with --port)' },
  SUP_ERR_METRICS_LISTEN_FAILED: { message: 'cannot serve metrics on {host}:{port}: {reason} (check --host)' },
  SUP_ERR_MONIT_NOT_A_TERMINAL: { message: 'sup monit needs a terminal, and this output is not one (sup ls --watch refreshes a plain table; sup ls --json is for programs)' },
  SUP_ERR_HOST_INVALID: { message: 'invalid host "{host}": {reason}' },
  SUP_ERR_HOST_NONE: { message: '--host all: no hosts in {file} ({reason}); list one ssh destination per line: deploy@web1, or web1:/srv/sup for another SUP_HOME' },
  SUP_ERR_HOST_UNREACHABLE: { message: '{host}: {reason} (try: ssh {host} sup ping)' },
  SUP_ERR_HOST_TIMEOUT: { message: '{host} did not answer within {seconds} s (SUP_HOST_TIMEOUT sets ssh\'s ConnectTimeout)' },
  SUP_ERR_HOST_FAILED: { message: '{failed} of {total} hosts failed: {hosts}' },
  SUP_ERR_HOST_ROLLOUT_STOPPED: { message: '{verb} stopped at {host}, after {done} host(s) done; not touched: {untouched}' },
  SUP_ERR_CLI_USAGE: { message: '{reason}' },
  SUP_ERR_CLI_UNSUPPORTED: { message: '"{what}" is not supported: {reason}' },
  SUP_ERR_SETTINGS_KEY_INVALID: { message: '"{key}" is not <app>.<key> (sup set api.LOG_LEVEL debug gives app api the variable LOG_LEVEL=debug)' },
  SUP_ERR_SETTINGS_NOT_FOUND: { message: '{key} is not set (sup get lists every setting)' },
  SUP_ERR_INTERNAL_ERROR: { message: 'internal error: {reason} (this is a bug in sup; the daemon log has details)' }
})

/** @typedef {keyof typeof ERRORS} ErrorCode every code sup has */

/**
 * The registry's entry for a code; a code this side does not know (one from a newer daemon,
 * on the wire) reads as an internal error.
 * @param {string} code
 * @returns {ErrorEntry}
 */
function entryOf (code) {
  return Object.hasOwn(ERRORS, code) ? ERRORS[/** @type {ErrorCode} */ (code)] : ERRORS.SUP_ERR_INTERNAL_ERROR
}

/**
 * Fill a message template with details.
 * @param {string} template
 * @param {Record<string, unknown>} details
 */
function formatMessage (template, details) {
  return template.replace(/\{(\w+)\}/g, (match, key) => key in details ? printable(String(details[key])) : match)
}

export class SupError extends Error {
  /**
   * @param {ErrorCode} code a code from ERRORS
   * @param {Record<string, unknown>} [details] values for the message template, kept for machines
   * @param {{ cause?: unknown, message?: string }} [options]
   */
  constructor (code, details = {}, options = {}) {
    const entry = entryOf(code)
    super(options.message ?? formatMessage(entry.message, details), { cause: options.cause })
    this.name = 'SupError'
    this.code = code
    this.details = details
  }

  /** The shape errors take on the wire (design §5). */
  toJSON () {
    return { code: this.code, message: this.message, details: this.details }
  }

  /**
   * Rebuild an error received from the other side of the socket.
   * @param {{ code?: string, message?: string, details?: Record<string, unknown> }} wire
   */
  static fromJSON (wire) {
    // The code is kept as sent, even one this side does not know: the message comes with it.
    const code = /** @type {ErrorCode} */ (wire.code ?? 'SUP_ERR_INTERNAL_ERROR')
    return new SupError(code, wire.details ?? {}, { message: wire.message ?? 'unknown error' })
  }
}

/**
 * The errno of a failed connect to a daemon's socket that means nobody listens there (it maps
 * to SUP_ERR_DAEMON_UNREACHABLE). ECONNRESET or EPIPE before the handshake is a daemon that died
 * as we connected: a SIGKILLed daemon's listening socket stays open until its last thread has
 * exited, tens of ms after its pid looks dead, and resets the connections that waited in its
 * backlog (ipc/process-status.js); our first write then meets EPIPE, or the read ECONNRESET.
 */
export const SOCKET_NOT_LISTENING = new Set(['ENOENT', 'ECONNREFUSED', 'ENOTSOCK', 'ECONNRESET', 'EPIPE'])
/** The errno that means the socket is there but not ours to use, its mode or its folder's (SUP_ERR_DAEMON_ACCESS_DENIED). */
export const SOCKET_NO_ACCESS = new Set(['EACCES', 'EPERM'])

/**
 * Wrap anything thrown into a SupError, keeping the original as the cause.
 * @param {unknown} err
 * @returns {SupError}
 */
export function toSupError (err) {
  if (err instanceof SupError) return err
  const reason = err instanceof Error ? err.message : String(err)
  return new SupError('SUP_ERR_INTERNAL_ERROR', { reason }, { cause: err })
}

/**
 * A user's value inside a one-line message: control characters (a newline in a name, an
 * escape sequence) are shown escaped, so the message stays one line and the terminal is safe.
 * @param {string} text
 */
function printable (text) {
  // A tab too: the message is one line for a reader and a grep.
  return escapeControls(text).replace(/\t/g, '\\t')
}
