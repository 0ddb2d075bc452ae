// @ts-check
// A fork-mode process that must be in its cgroup before it runs anything of the user's:
// started as `sh -c 'read -r _ && exec "$@" </dev/null' …`, it waits on its stdin (a pipe from
// the daemon) while the daemon writes its pid into its cgroups, then becomes the real command,
// same pid, stdin /dev/null as before. Writing the pid right after spawn() instead would leave
// a window in which a program that forks at once (a shell script's `setsid -f …`) starts a
// child outside the cgroup; the daemon moves the process, so this works whatever uid it runs as.
// If the daemon dies first the pipe closes, read fails and nothing runs.

/** What sh runs: wait for one line, then exec the command with stdin from /dev/null. */
export const GATE_SHELL = 'read -r _ || exit 125; exec "$@" </dev/null'

/**
 * @template {{ command: string, args: string[] }} T
 * @param {T} cmd
 * @returns {T}
 */
export function withGate (cmd) {
  return { ...cmd, command: '/bin/sh', args: ['-c', GATE_SHELL, 'sup-gate', cmd.command, ...cmd.args] }
}

/**
 * Let the gated process go on.
 * @param {import('node:stream').Writable | null} stdin its stdin pipe
 */
export function openGate (stdin) {
  if (!stdin || stdin.destroyed) return
  // A process that died at once closes the pipe: EPIPE is nothing to report.
  stdin.on('error', () => {})
  stdin.end('\n')
}
