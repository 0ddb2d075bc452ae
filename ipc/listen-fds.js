// @ts-check
// systemd's socket-activation protocol (sd_listen_fds(3)): LISTEN_FDS sockets from fd 3,
// named in LISTEN_FDNAMES, meant for the process whose pid is LISTEN_PID. Shared by the CLI,
// which passes sockets it was activated with on to the daemon it starts, and the daemon, which
// adopts them for the apps whose `listen` they match (docs/deploy.md#socket-activation).
// Dependency-free.

/** The first inherited descriptor (SD_LISTEN_FDS_START). */
export const LISTEN_FDS_START = 3

/** The variables of the protocol; nothing else should see them once they are taken. */
export const LISTEN_VARS = /** @type {const} */ (['LISTEN_FDS', 'LISTEN_PID', 'LISTEN_FDNAMES'])

/** More than any unit would pass; a bigger LISTEN_FDS is taken for garbage. */
const MAX_FDS = 1024

/**
 * The sockets this process was activated with, or null when there are none for it: no
 * LISTEN_FDS, a LISTEN_PID of another process (a parent's variables inherited by mistake), or
 * values that are not numbers.
 * @param {NodeJS.ProcessEnv} env
 * @param {number} pid this process
 * @returns {{ fds: number[], names: string[] } | null} names: one per fd, '' where none was given
 */
export function readListenFds (env, pid) {
  if (env.LISTEN_PID !== String(pid)) return null
  const count = Number(env.LISTEN_FDS)
  if (!/^\d+$/.test(env.LISTEN_FDS ?? '') || count < 1 || count > MAX_FDS) return null
  const given = (env.LISTEN_FDNAMES ?? '').split(':')
  const fds = Array.from({ length: count }, (_, i) => LISTEN_FDS_START + i)
  return { fds, names: fds.map((_, i) => given[i] ?? '') }
}

/**
 * The environment without the protocol's variables, for a process they are not meant for.
 * @template {Record<string, string | undefined>} T
 * @param {T} env
 * @returns {T}
 */
export function withoutListenVars (env) {
  const out = { ...env }
  for (const key of LISTEN_VARS) delete out[key]
  return out
}

/** The exec wrapper that sets LISTEN_PID: a POSIX shell, present on every system sup runs on. */
export const LISTEN_PID_SHELL = '/bin/sh'

/**
 * systemd's LISTEN_PID must be the pid of the process the sockets are for, and consumers
 * (sd_listen_fds, gunicorn, go-systemd) ignore LISTEN_FDS when it is not theirs. spawn()
 * cannot know the pid before the fork, so, as systemd does after its fork, a shell sets it
 * to its own pid ($$) and exec()s the real command, which keeps that pid. The command and its
 * arguments are "$@", never parsed by the shell.
 * @template {{ command: string, args: string[] }} C
 * @param {C} cmd
 * @returns {C}
 */
export function withListenPid (cmd) {
  return { ...cmd, command: LISTEN_PID_SHELL, args: ['-c', 'LISTEN_PID=$$; export LISTEN_PID; exec "$@"', 'sup-listen', cmd.command, ...cmd.args] }
}
