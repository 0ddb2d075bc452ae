// @ts-check
// Each app in a cgroup of its own, each of its processes in a cgroup of that (design §12):
//
//   <the daemon's own cgroup>/sup-<hash of SUP_HOME>/app-<name>/worker-<pid>
//
// in each hierarchy sup uses: the one that ends a cgroup (v2's cgroup.kill, else v1's freezer)
// and those of the limits and accounting (v2 controllers first, a v1 hierarchy only for a
// controller v2 does not offer). One subtree per daemon, named from its SUP_HOME, so two
// daemons never touch each other's; a process cannot leave its cgroup without root, so
// `setsid -f env -i sleep 999` dies with the worker that started it.
//
// Where sup may not create cgroups (not root and no delegated subtree, macOS, SUP_CGROUPS=off)
// containment is the environment-token sweep (worker/process-tree.js), and describe says so.
import { createHash } from 'node:crypto'
import { mkdirSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { killCgroup, removeCgroup, subdirs } from './cgroup-dir.js'
import { readLayout } from './layout.js'
import { checkLimits, limitWrites, oomCause, readOomKills } from './limits.js'
import { cgroupFiles, readCgroupFigures } from './usage.js'
import { enableBelowAsync, enableV2Controllers } from './v2-controllers.js'

/**
 * @typedef {import('./layout.js').Layout} Layout
 * @typedef {import('./layout.js').Hierarchy} Hierarchy
 * @typedef {'memory' | 'cpu' | 'pids' | 'cpuacct'} Controller
 *
 * @typedef {object} Containment what `sup describe` says of an app's processes
 * @property {'cgroup-v2' | 'cgroup-v1' | 'token'} kind
 * @property {string | null} reason why not a cgroup (kind token)
 * @property {Layout['kind']} layout
 * @property {Partial<Record<Controller, 1 | 2>>} controllers which hierarchy each limit and figure comes from
 */

/** The name of a daemon's subtree: one per SUP_HOME (one daemon per SUP_HOME holds its lock). @param {string} home */
export function subtreeName (home) {
  return `sup-${createHash('sha256').update(home).digest('hex').slice(0, 12)}`
}

/** An app's cgroup: prefixed, so no app name (`cgroup.procs` is one) meets a control file. @param {string} app */
export const appDirName = (app) => `app-${app}`

/**
 * Which hierarchy serves what: the kill, and each controller. Pure, for the table test.
 * @param {Layout} layout
 * @param {{ v1Only?: boolean }} [prefer] v1Only: as if there were no cgroup v2 (SUP_CGROUPS=v1)
 * @returns {{ kill: Hierarchy | null, controllers: Partial<Record<Controller, Hierarchy>> }}
 */
export function planHierarchies (layout, { v1Only = false } = {}) {
  const v2 = v1Only ? null : layout.v2
  /** @param {string} name */
  const v1 = (name) => layout.v1.find((h) => h.controllers.includes(name)) ?? null
  /** @type {Partial<Record<Controller, Hierarchy>>} */
  const controllers = {}
  for (const name of /** @type {Controller[]} */ (['memory', 'cpu', 'pids'])) {
    const h = v2?.controllers.includes(name) ? v2 : v1(name)
    if (h) controllers[name] = h
  }
  // v2's cpu.stat counts usage without the cpu controller; v1 keeps it in cpuacct.
  const acct = v2 ?? v1('cpuacct')
  if (acct) controllers.cpuacct = acct
  return { kill: v2 ?? v1('freezer'), controllers }
}

/**
 * Whether a worker of `config` goes in `hierarchy`: the kill's always, the accounting's (memory,
 * cpuacct) always, a limit's only where the app sets that limit. Each hierarchy is one more of
 * the kernel's slow moves at every start (1.5-12 ms on cgroup v1 here), for nothing where no
 * limit is set (v1's cpu and pids, most often).
 * @param {{ kill: Hierarchy | null, controllers: Partial<Record<Controller, Hierarchy>> }} plan planHierarchies'
 * @param {Hierarchy} hierarchy
 * @param {import('../../ipc/app-config.js').AppConfig} config
 */
export function servesWorker ({ kill, controllers }, hierarchy, config) {
  if (hierarchy === kill) return true
  return Object.entries(controllers).some(([name, owner]) => owner === hierarchy &&
    (name === 'memory' || name === 'cpuacct' || limitWrites(config, /** @type {Controller} */ (name), hierarchy.version).length > 0))
}

/** One worker process's cgroups: where its figures are read and what ends it. */
export class Leaf {
  /**
   * @param {Array<{ hierarchy: Hierarchy, dir: string }>} dirs the kill's first
   * @param {Partial<Record<Controller, { dir: string, version: 1 | 2 }>>} byController where each controller's files are
   * @param {import('../../ipc/app-config.js').AppConfig} config the settings it was started with (its limits)
   */
  constructor (dirs, byController, config) {
    this.dirs = dirs
    this.byController = byController
    this.config = config
    this.files = cgroupFiles(dirs[0].dir, byController, config)
  }

  /**
   * What the kernel counts for it now, and the processes in it (the worker and everything it
   * started, wherever they went); null without memory and CPU accounting.
   * @param {import('./usage.js').ReadFile} [readFile] how its files are read (the sampler keeps them open)
   */
  figures (readFile) {
    return this.files && readCgroupFigures(this.files, readFile)
  }

  /**
   * Why it died, when the kernel's OOM killer ended it (its max_memory), else null.
   * @returns {string | null}
   */
  oomCause () {
    const memory = this.byController.memory
    return memory ? oomCause(this.config, readOomKills(memory.dir, memory.version)) : null
  }

  /** The kill's cgroup, where everything the worker started is. */
  get dir () {
    return this.dirs[0].dir
  }

  /**
   * End every process in it (the worker and all it started, wherever they went).
   * @returns {Promise<number>} how many there were
   */
  kill () {
    return killCgroup(this.dirs[0].dir, this.dirs[0].hierarchy.version)
  }

  /**
   * Kill what is left, then remove its directories (and its app's, once empty).
   * @returns {Promise<number>} how many processes were left to kill
   */
  async remove () {
    const killed = await this.kill()
    for (const { dir } of this.dirs) {
      removeCgroup(dir)
      // The app's own cgroup goes with its last worker: rmdir fails while another is in it.
      removeCgroup(join(dir, '..'), { only: true })
    }
    return killed
  }
}

export class Cgroups {
  /**
   * @param {{ home: string, layout?: Layout, env?: NodeJS.ProcessEnv, logger: import('pino').Logger, delegate?: boolean }} options
   *   env.SUP_CGROUPS: `off` (the token sweep only), `v1` (ignore cgroup v2), else automatic;
   *   delegate: enable v2 controllers down the daemon's cgroup, moving the calling process into a
   *   leaf when it must (the daemon only: a tool that merely reads or removes cgroups passes false)
   */
  constructor ({ home, layout = readLayout(), env = {}, logger, delegate = false }) {
    this.logger = logger
    this.layout = layout
    this.name = subtreeName(home)
    const mode = env.SUP_CGROUPS ?? 'auto'
    const plan = planHierarchies(layout, { v1Only: mode === 'v1' })
    /** @type {Hierarchy | null} */
    this.kill = mode === 'off' ? null : plan.kill
    this.controllers = plan.controllers
    /** @type {string | null} */
    this.reason = mode === 'off' ? 'SUP_CGROUPS=off' : this.kill ? null : 'no cgroup hierarchy that can end a group (cgroup v2, or v1 freezer) is mounted'
    if (this.kill) this.reason = this.makeRoots()
    if (this.reason) this.kill = null
    /** @type {string[]} v2 controllers enabled for the workers' cgroups (their app's cgroup enables them too) */
    this.v2Controllers = []
    if (this.kill && layout.v2 && mode !== 'v1') {
      if (delegate) this.delegateV2(layout, layout.v2)
      else this.controllers = planHierarchies({ ...layout, v2: { ...layout.v2, controllers: [] } }).controllers
    }
  }

  /** Every hierarchy a leaf lives in, the kill's first. */
  get hierarchies () {
    if (!this.kill) return []
    return [...new Set([this.kill, ...Object.values(this.controllers)])]
  }

  /** @param {Hierarchy} h */
  rootOf (h) {
    return join(h.own, this.name)
  }

  /** Whether workers get cgroups (else the token sweep contains them). */
  get enabled () {
    return this.kill !== null
  }

  /**
   * The v2 controllers planned for limits are enabled down to the subtree, or given back to
   * the v1 hierarchies (v2-controllers.js).
   * @param {Layout} layout
   * @param {Hierarchy} v2
   */
  delegateV2 (layout, v2) {
    const wanted = Object.entries(this.controllers).filter(([name, h]) => h === v2 && name !== 'cpuacct').map(([name]) => name)
    if (wanted.length === 0) return
    const enabled = enableV2Controllers({ own: v2.own, mount: v2.mount, root: this.rootOf(v2), daemonLeaf: join(v2.own, `${this.name}.daemon`), wanted })
    this.v2Controllers = enabled
    if (enabled.length === wanted.length) return
    const replanned = planHierarchies({ ...layout, v2: { ...v2, controllers: enabled } })
    this.controllers = replanned.controllers
    this.makeRoots()
  }

  /** @returns {string | null} why sup may not create cgroups here, or null */
  makeRoots () {
    for (const h of this.hierarchies) {
      try {
        mkdirSync(this.rootOf(h), { recursive: true })
      } catch (err) {
        // A limit's hierarchy we may not write is left out; the kill's is needed.
        if (h === this.kill) return `cannot create ${this.rootOf(h)}: ${/** @type {NodeJS.ErrnoException} */ (err).code}`
        for (const [name, owner] of Object.entries(this.controllers)) if (owner === h) delete this.controllers[/** @type {Controller} */ (name)]
      }
    }
    return null
  }

  /** @returns {Containment} */
  describe () {
    /** @type {Partial<Record<Controller, 1 | 2>>} */
    const controllers = {}
    if (this.kill) for (const [name, h] of Object.entries(this.controllers)) controllers[/** @type {Controller} */ (name)] = h.version
    return { kind: this.kill ? (this.kill.version === 2 ? 'cgroup-v2' : 'cgroup-v1') : 'token', reason: this.reason, layout: this.layout.kind, controllers }
  }

  /**
   * Put a process just spawned into its own cgroup under its app's. The process waits at its
   * gate meanwhile (worker/gate.js, agent/gate.cjs): nothing of the user's runs until it is in.
   * Asynchronous, one hierarchy beside the other: moving a process between cgroups is a write
   * the kernel makes wait (1.5-12 ms each on cgroup v1 here), which must not hold the loop.
   * @param {import('../../ipc/app-config.js').AppConfig} config its app's settings: the name, the limits
   * @param {number} pid
   * @returns {Promise<Leaf | null>} null where there are no cgroups (or it failed: logged, and
   *   the token sweep still finds what the worker leaves)
   */
  async place (config, pid) {
    if (!this.kill) return null
    const app = config.name
    /** @type {Array<{ hierarchy: Hierarchy, dir: string }>} in the order of the hierarchies: the kill's first */
    const dirs = this.hierarchies.filter((h) => servesWorker(this, h, config)).map((hierarchy) => ({ hierarchy, dir: join(this.rootOf(hierarchy), appDirName(app), `worker-${pid}`) }))
    try {
      await Promise.all(dirs.map(async ({ hierarchy, dir }) => {
        await mkdir(dir, { recursive: true })
        if (hierarchy.version === 2) await enableBelowAsync(join(dir, '..'), this.v2Controllers)
        // The limits before the process: it never runs a moment without them.
        for (const [name, owner] of Object.entries(this.controllers)) {
          if (owner === hierarchy) await writeLimits(dir, limitWrites(config, /** @type {Controller} */ (name), hierarchy.version))
        }
        await writeFile(join(dir, 'cgroup.procs'), String(pid))
      }))
    } catch (err) {
      this.logger.warn({ err, app, pid }, 'could not put the worker in its cgroup; the token sweep contains it')
      for (const { dir } of dirs) removeCgroup(dir)
      return null
    }
    /** @type {Partial<Record<Controller, { dir: string, version: 1 | 2 }>>} */
    const byController = {}
    for (const [name, h] of Object.entries(this.controllers)) {
      const found = dirs.find((d) => d.hierarchy === h)
      if (found) byController[/** @type {Controller} */ (name)] = { dir: found.dir, version: h.version }
    }
    return new Leaf(dirs, byController, config)
  }

  /**
   * Refuse an app whose limits this daemon cannot enforce (preflight, before its first spawn).
   * @param {import('../../ipc/app-config.js').AppConfig} config
   */
  checkLimits (config) {
    const reason = this.reason ?? 'the controller is not mounted, or sup may not write it'
    checkLimits(config, (controller) => this.enabled && controller in this.controllers, reason)
  }

  /**
   * End what a dead daemon of this SUP_HOME left in its cgroups (docs/persistence.md: sup ends
   * them rather than re-adopting them), and remove its cgroups.
   * @param {string[]} [recorded] the subtrees that daemon recorded (other own cgroups than ours)
   * @returns {Promise<number>} how many processes were killed
   */
  async endPrevious (recorded = []) {
    let killed = 0
    for (const h of this.hierarchies) {
      const roots = new Set([this.rootOf(h), ...recorded.filter((r) => r.startsWith(h.mount + '/') && r.endsWith('/' + this.name))])
      for (const root of roots) {
        if (h === this.kill) killed += await killCgroup(root, h.version)
        for (const child of subdirs(root)) removeCgroup(join(root, child))
        if (root !== this.rootOf(h)) removeCgroup(root)
      }
    }
    return killed
  }

  /** Every subtree this daemon uses, for the next daemon to find (endPrevious). */
  roots () {
    return this.hierarchies.map((h) => this.rootOf(h))
  }

  /** At the daemon's clean stop: its subtree goes (what is still in it stays, with its dirs). */
  close () {
    for (const h of this.hierarchies) removeCgroup(this.rootOf(h))
  }
}

/**
 * @param {string} dir
 * @param {import('./limits.js').LimitWrite[]} writes
 */
async function writeLimits (dir, writes) {
  for (const { file, value, optional } of writes) {
    try {
      await writeFile(join(dir, file), value)
    } catch (err) {
      if (!optional) throw err
    }
  }
}
