// @ts-check
// A fork-mode process that must be in its cgroup before it runs anything of the user's:
// started as `sh -c 'read -r _ && exec "$@" </dev/null' …`, it waits on its stdin (a pipe from
// the daemon) while the daemon writes its pid into its cgroups, then becomes the real command,
// same pid, stdin /dev/null as before. Writing the pid right after spawn() instead would leave
// a window in which a program that forks at once (a shell script's `setsid -f …`) starts a
// child outside the cgroup; the daemon moves the process, so this works whatever uid it runs as.
// If the daemon dies first the pipe closes, read fails and nothing runs.

/**
 * What sh runs: wait for one line, then exec the command with stdin from /dev/null. A shell
 * sets PWD in the environment it passes on (dash: to the working directory), so PWD is put back
 * as the worker's environment had it, or removed: the command sees exactly the environment given.
 */
export const GATE_SHELL = 'read -r _ || exit 125; exec "$@" </dev/null'
const KEEP_PWD = 'PWD=$1; export PWD; shift; '
const NO_PWD = 'unset PWD; '

/**
 * @template {{ command: string, args: string[] }} T
 * @param {T} cmd
 * @param {Record<string, string | undefined>} env the environment the command must see
 * @returns {T}
 */
export function withGate (cmd, env) {
  const [wait, run] = GATE_SHELL.split('; ')
  const pwd = env.PWD === undefined ? { script: NO_PWD, args: [] } : { script: KEEP_PWD, args: [env.PWD] }
  return { ...cmd, command: '/bin/sh', args: ['-c', `${wait}; ${pwd.script}${run}`, 'sup-gate', ...pwd.args, cmd.command, ...cmd.args] }
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
