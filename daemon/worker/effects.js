// @ts-check
// The outside world as the daemon's orchestration touches it: processes, timers, the clock,
// the process tree and the cluster's balancing. Worker, rollout and reload take it passed in,
// so unit tests drive a rollout or the stop ladder with a fake process and a fake clock.
import cluster from 'node:cluster'
import { ProcessTable } from './process-tree.js'
import { ParentDeathSignal, spawnWorker } from './spawn.js'
import { Primaries } from '../node-runtime/primaries.js'
import { Router } from '../balance/router.js'
import adapterRelay from '../relay/adapter-relay.cjs'
import { checkFor } from './checks.js'
import { preflight } from '../preflight.js'
import { runtimeResolver } from '../node-runtime/resolve.js'
import { LogPipes } from '../logs/log-pipe.js'

/**
 * @typedef {{ setTimeout: (fn: () => void, ms: number) => any, clearTimeout: (timer: any) => void }} Timers
 *
 * @typedef {object} ProcessTree how the stop ladder finds and signals a worker's processes
 * @property {(pid: number) => Promise<import('./process-tree.js').ProcInfo[]>} list the descendants of pid
 * @property {(pid: number, signal: NodeJS.Signals) => boolean} signal one pid (negative: its group)
 * @property {(recorded: import('./process-tree.js').ProcInfo[], signal: NodeJS.Signals) => Promise<number>} signalRecorded
 *   the recorded processes that are still the same ones; resolves to how many were signalled
 * @property {(token: string, since: string | null) => Promise<import('./process-tree.js').ProcInfo[]>} marked
 *   the processes that carry a worker's token in their environment, wherever they are now,
 *   started since `since` (the worker's own start time)
 * @property {(pid: number) => Promise<import('./process-tree.js').ProcInfo | null>} read one process
 *
 * @typedef {object} Effects
 * @property {(config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>, sockets?: import('../sockets/held-sockets.js').HandOver | null, runtime?: import('../node-runtime/resolve.js').Runtime | null) => import('./spawn.js').SpawnedWorker} spawn
 * @property {Timers} timers
 * @property {() => number} now ms since the epoch, on a clock that never jumps (durations: uptime,
 *   min_uptime, backoff, timeouts)
 * @property {() => import('../../ipc/balance.js').Balance} balance how cluster workers get
 *   their connections: 'rr', the primary hands each one out (and a gated worker is skipped)
 *   cgroups: where each worker process gets its own cgroup (daemon/cgroups/); none: the token sweep
 * @property {ProcessTree} tree
 * @property {typeof checkFor} check a probe's check, made from the daemon (http, tcp, exec)
 * @property {(config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>) => Promise<void>} prepare
 *   what starting `config` needs to know and only a child process can tell (the --version of
 *   the nodes it may run on, whether setpriv is there), asked ahead without blocking the loop:
 *   awaited where a config enters (start, restore, restart, reload), before preflight and runtime
 * @property {(config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>) => void} preflight throws why an app cannot start at all, before its first spawn
 * @property {(config: import('../../ipc/app-config.js').AppConfig, env: Record<string, string>) => import('../node-runtime/resolve.js').Runtime | null} runtime
 *   the program a new process of `config` runs on (throws a SupError when there is none)
 * @property {(name: string) => Record<string, string>} [settings] an app's `sup set` values
 *   (daemon/settings.js), read at each start; none when not given
 */

/**
 * The wall clock at the daemon's start plus the monotonic time since: reads like Date.now(),
 * but a clock set back or forward an hour (NTP, a VM resumed, an admin) does not make every
 * uptime negative or a crash loop look stable. Wall-clock times (log lines, cron) use Date.now().
 */
export function monotonicNow () {
  return Math.floor(performance.timeOrigin + performance.now())
}

/**
 * The real world, one per daemon: the primaries it runs on other nodes, the router of its
 * sticky and least-conn apps, the relay between its apps' workers, the process table's shared
 * scans and the setpriv it finds live in it, so two daemons in one process (tests) share none
 * of them.
 * @param {{ balance?: import('../../ipc/balance.js').Balance, settings?: (name: string) => Record<string, string>, cgroups?: import('../cgroups/cgroups.js').Cgroups | null, warn?: (message: string) => void }} [options]
 *   balance: how cluster workers get their connections; Node freezes the policy at the first
 *   fork, so it is set here, before any (docs/architecture.md#balancing); left as it is when not given;
 *   warn: for the daemon's log (workers' output through socket pairs when no pipe can be made)
 * @returns {Effects}
 */
export function realEffects ({ balance, settings, cgroups = null, warn = () => {} } = {}) {
  if (balance) cluster.schedulingPolicy = balance === 'os' ? cluster.SCHED_NONE : cluster.SCHED_RR
  const spawning = { primaries: new Primaries(), parentDeath: new ParentDeathSignal(), router: new Router(), relay: adapterRelay.createAdapterRelay(), pipes: new LogPipes({ warn }) }
  const runtime = runtimeResolver()
  return Object.freeze({
    spawn: (config, env, sockets, runtime) => intoCgroup(cgroups, config, spawnWorker(spawning, config, env, sockets, runtime, cgroups?.enabled)),
    timers: Object.freeze({ setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => setTimeout(fn, ms), clearTimeout: (/** @type {any} */ timer) => clearTimeout(timer) }),
    now: monotonicNow,
    balance: () => cluster.schedulingPolicy === cluster.SCHED_RR ? 'rr' : 'os',
    check: checkFor,
    prepare: async (config, env) => {
      await Promise.all([runtime.prepare(config, env), spawning.parentDeath.ready(), spawning.pipes.reserve(config.instances)])
    },
    // Limits the daemon cannot enforce refuse the app as a missing script does.
    preflight: (config, env) => {
      preflight(config, env, runtime)
      cgroups?.checkLimits(config)
    },
    runtime,
    tree: Object.freeze(new ProcessTable()),
    ...(settings ? { settings } : {})
  })
}

/**
 * Put a process just spawned into its cgroup while it waits at its gate (fork mode:
 * worker/gate.js; cluster mode: agent/gate.cjs), then let it go on.
 * A cluster worker on another node is placed when its pid arrives.
 * @param {import('../cgroups/cgroups.js').Cgroups | null} cgroups
 * @param {import('../../ipc/app-config.js').AppConfig} config
 * @param {import('./spawn.js').SpawnedWorker} proc
 */
function intoCgroup (cgroups, config, proc) {
  let exited = false
  proc.events.once('exit', () => { exited = true })
  const place = async (/** @type {number} */ pid) => {
    const leaf = (await cgroups?.place(config, pid)) ?? null
    // Gone while it was placed (stopped at its gate): its reap has run already, without it.
    if (exited) {
      leaf?.remove().catch(() => {})
      return
    }
    proc.cgroup = leaf
    proc.release?.()
  }
  if (proc.pid !== undefined) place(proc.pid)
  else if (cgroups?.enabled) proc.events.once('spawned', place)
  return proc
}
