// @ts-check
// The systemd unit `sup startup` writes: pure text, unit-tested (and checked with
// `systemd-analyze verify` where it exists).
//
// Type=forking, not Type=notify: the daemon would have to send READY=1 on $NOTIFY_SOCKET, a
// unix datagram socket, which Node cannot open without a native module. With forking,
// ExecStart is a short-lived `sup ping` that starts the daemon (detached, in the unit's
// cgroup) and exits once it answers; systemd then reads the daemon's pid from daemon.pid (pm2.pid in PM2's home).
import { SupError } from '../../ipc/errors.js'
import { parseListenEntry } from '../../ipc/listen.js'

/**
 * @typedef {object} UnitOptions
 * @property {string} user the account the daemon runs as
 * @property {string} supHome absolute SUP_HOME of that account
 * @property {string} [pidFile] the daemon's pid file in it (pm2.pid where SUP_HOME is PM2's home)
 * @property {string} node absolute path of the node binary
 * @property {string} supBin absolute path of bin/sup.cjs
 * @property {string} path the PATH the daemon and its apps get (interpreters are found on it)
 * @property {string} version sup's version, for the header comment
 * @property {string | null} [socket] the .socket unit that holds the saved apps' `listen`
 *   sockets (renderSocketUnit), or null for none
 */

/**
 * @param {UnitOptions} options
 * @returns {string}
 */
export function renderSystemdUnit ({ user, supHome, pidFile = `${supHome}/daemon.pid`, node, supBin, path, version, socket = null }) {
  checkUnitValues({ user, SUP_HOME: supHome, PIDFile: pidFile, node, sup: supBin, PATH: path, ...(socket === null ? {} : { 'socket unit': socket }) })
  const sup = (/** @type {string} */ verb) => [node, supBin, verb].map(quoteExecArg).join(' ')
  return [
    `# Written by "sup startup" (sup ${version}); "sup unstartup" removes it.`,
    '# At boot: start the daemon, then resurrect the apps of dump.json. A daemon that dies is',
    '# started again, and restores its apps itself (docs/persistence.md).',
    '[Unit]',
    `Description=${escapeValue(`sup process supervisor for ${user} (SUP_HOME ${supHome})`)}`,
    'After=network-online.target',
    'Wants=network-online.target',
    // The socket unit's sockets are passed to ExecStart (sup ping), which hands them to the daemon.
    ...(socket ? [`Requires=${socket}`, `After=${socket}`] : []),
    '',
    '[Service]',
    'Type=forking',
    `User=${user}`,
    `Environment=${quoteAssignment('SUP_HOME', supHome)}`,
    `Environment=${quoteAssignment('PATH', path)}`,
    `PIDFile=${escapeValue(pidFile)}`,
    `ExecStart=${sup('ping')}`,
    // "-": an app that fails to come online must not fail the unit (and stop every other app).
    `ExecStartPost=-${sup('resurrect')}`,
    // SIGTERM to the daemon only: it stops the apps with their own ladders, marks the dump
    // cleanly stopped and exits; whatever is left after that gets SIGKILL.
    'KillMode=mixed',
    // The unit's cgroup is the daemon's to divide: a cgroup per worker (docs/reliability.md#containment).
    'Delegate=yes',
    'TimeoutStopSec=120',
    'Restart=on-failure',
    'RestartSec=2',
    'LimitNOFILE=infinity',
    '',
    '[Install]',
    'WantedBy=multi-user.target',
    ''
  ].join('\n')
}

/**
 * The .socket unit beside the service when saved apps have `listen`: systemd binds those
 * sockets (before the daemon, and as root: ports below 1024 work for any user) and passes
 * them to the service, whose daemon adopts them; connections made while it starts wait in
 * their queues (docs/deploy.md#socket-activation).
 * @param {{ user: string, service: string, listen: Array<{ app: string, entry: string }>, version: string }} options
 *   listen: canonical `listen` entries (ipc/listen.js) and the app each is for
 * @returns {string}
 */
export function renderSocketUnit ({ user, service, listen, version }) {
  checkUnitValues({ user, 'service name': service })
  for (const { app, entry } of listen) checkUnitValue(entry, { app, key: 'listen' })
  return [
    `# Written by "sup startup" (sup ${version}) for ${service}.service; "sup unstartup" removes it.`,
    "# The sockets of the saved apps' listen setting, held by systemd and passed to sup's daemon.",
    '[Unit]',
    `Description=${escapeValue(`sockets of the sup apps of ${user}`)}`,
    '',
    '[Socket]',
    ...listen.map(({ entry }) => `ListenStream=${escapeValue(listenStream(entry))}`),
    // One name for every socket of the unit (systemd's rule); the daemon tells them apart by address.
    `FileDescriptorName=${service.replace(/[^A-Za-z0-9_.-]/g, '_')}`,
    // Unix socket files belong to the daemon's user, as the ones it binds itself.
    `SocketUser=${user}`,
    'SocketMode=0600',
    `Service=${service}.service`,
    '',
    '[Install]',
    'WantedBy=sockets.target',
    ''
  ].join('\n')
}

/**
 * A canonical `listen` entry as ListenStream= takes it: a port alone is every interface,
 * IPv6 and IPv4, as sup binds it.
 * @param {string} entry
 */
export function listenStream (entry) {
  const spec = parseListenEntry(entry)
  if ('error' in spec) throw new Error(`not a listen entry: ${entry}`)
  if (spec.kind === 'unix') return spec.path
  if (spec.host === null) return String(spec.port)
  const host = spec.host === 'localhost' ? '127.0.0.1' : spec.host
  return host.includes(':') ? `[${host}]:${spec.port}` : `${host}:${spec.port}`
}

/**
 * systemd's own name for the unit: `sup-<user>`, with what a unit name cannot hold replaced.
 * @param {string} user
 */
export function defaultServiceName (user) {
  return `sup-${user.replace(/[^A-Za-z0-9:_.\\-]/g, '_')}`
}

/**
 * Specifiers (%) are expanded in every value; a literal % is written %%.
 * @param {string} value
 */
export function escapeValue (value) {
  return value.replace(/%/g, '%%')
}

/**
 * One word of ExecStart: specifiers escaped, "$" doubled (ExecStart expands variables), and
 * double quotes (with C escapes) around anything systemd would otherwise split or unescape.
 * @param {string} arg
 */
export function quoteExecArg (arg) {
  const escaped = escapeValue(arg).replace(/\$/g, '$$$$')
  if (escaped !== '' && !/[\s"'\\;]/.test(escaped)) return escaped
  return `"${escaped.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/**
 * KEY=value for Environment=, quoted as a whole so spaces survive.
 * @param {string} key
 * @param {string} value
 */
export function quoteAssignment (key, value) {
  return `"${escapeValue(`${key}=${value}`).replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`
}

/**
 * systemd reads a unit line by line, and a line that ends in a backslash goes on on the next:
 * a control character (a newline above all) or a trailing backslash in a value would add or
 * swallow a directive, and `sup startup` writes values from a user's dump as root. Such a
 * value is refused, naming where it came from, not escaped: no systemd key takes one.
 * @param {string} value
 * @param {{ app?: string, key: string }} where
 */
export function checkUnitValue (value, { app, key }) {
  // eslint-disable-next-line no-control-regex
  const control = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.exec(value)
  const reason = control
    ? `holds the control character ${JSON.stringify(control[0])} (it would end the line, and what follows would be a directive of its own)`
    // Spaces after it do not save it: a line is read with its trailing blanks cut off.
    : value.trimEnd().endsWith('\\') ? 'ends in a backslash (systemd would join the next line to it)' : null
  if (reason === null) return
  const owner = app === undefined ? 'the daemon' : `app "${app}"`
  const fix = app === undefined ? 'change it' : 'change it, then sup save'
  throw new SupError('SUP_ERR_STARTUP_UNSAFE_VALUE', { owner, app: app ?? null, key, value, reason, fix })
}

/**
 * @param {Record<string, string>} values the daemon's own values, by the name the user knows them by
 */
function checkUnitValues (values) {
  for (const [key, value] of Object.entries(values)) checkUnitValue(value, { key })
}
