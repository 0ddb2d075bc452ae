// @ts-check
// The systemd unit `sup startup` writes: pure text, unit-tested (and checked with
// `systemd-analyze verify` where it exists).
//
// Type=forking, not Type=notify: the daemon would have to send READY=1 on $NOTIFY_SOCKET, a
// unix datagram socket, which Node cannot open without a native module. With forking,
// ExecStart is a short-lived `sup ping` that starts the daemon (detached, in the unit's
// cgroup) and exits once it answers; systemd then reads the daemon's pid from daemon.pid (pm2.pid in PM2's home).

/**
 * @typedef {object} UnitOptions
 * @property {string} user the account the daemon runs as
 * @property {string} supHome absolute SUP_HOME of that account
 * @property {string} [pidFile] the daemon's pid file in it (pm2.pid where SUP_HOME is PM2's home)
 * @property {string} node absolute path of the node binary
 * @property {string} supBin absolute path of bin/sup.cjs
 * @property {string} path the PATH the daemon and its apps get (interpreters are found on it)
 * @property {string} version sup's version, for the header comment
 */

/**
 * @param {UnitOptions} options
 * @returns {string}
 */
export function renderSystemdUnit ({ user, supHome, pidFile = `${supHome}/daemon.pid`, node, supBin, path, version }) {
  const sup = (/** @type {string} */ verb) => [node, supBin, verb].map(quoteExecArg).join(' ')
  return [
    `# Written by "sup startup" (sup ${version}); "sup unstartup" removes it.`,
    '# At boot: start the daemon, then resurrect the apps of dump.json. A daemon that dies is',
    '# started again, and restores its apps itself (docs/persistence.md).',
    '[Unit]',
    `Description=${escapeValue(`sup process supervisor for ${user} (SUP_HOME ${supHome})`)}`,
    'After=network-online.target',
    'Wants=network-online.target',
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
