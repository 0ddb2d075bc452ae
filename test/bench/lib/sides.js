// The contenders: sup (its real CLI, a private SUP_HOME), the hand-written cluster primary,
// plain node, and PM2 (a private PM2_HOME) when it is installed. Each leaves nothing behind.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { childrenOf, isAlive, runCommand, startProcess, waitForGone } from './procs.js'

export const BENCH = fileURLToPath(new URL('..', import.meta.url))
export const ROOT = join(BENCH, '..', '..')
export const SUP_BIN = join(ROOT, 'bin', 'sup.cjs')
export const PM2_BIN = join(BENCH, 'node_modules', 'pm2', 'bin', 'pm2')
export const app = (/** @type {string} */ name) => join(BENCH, 'apps', name)

/** Every process in a tree, parents first. @param {number} pid @returns {number[]} */
export function treeOf (pid) {
  return [pid, ...childrenOf(pid).flatMap(treeOf)]
}

/** @param {number[]} pids */
function killAll (pids) {
  for (const pid of pids) { try { process.kill(pid, 'SIGKILL') } catch {} }
}

/** @param {string} file */
function readPid (file) {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8'), 10)
    return Number.isInteger(pid) ? pid : null
  } catch {
    return null
  }
}

/**
 * A sup installation of its own: SUP_HOME in a temp dir, the CLI run as a user would.
 * @param {import('../run.js').BenchContext} ctx
 * @param {Record<string, string>} [extraEnv] e.g. { SUP_BALANCE: 'os' } for the daemon it starts
 */
export function supHome (ctx, extraEnv = {}) {
  const home = mkdtempSync(join(tmpdir(), 'sup-bench-'))
  const env = { ...process.env, ...extraEnv, SUP_HOME: home, NO_COLOR: '1' }
  const self = {
    home,
    env,
    /** @param {string[]} args @param {Record<string, string>} [more] */
    sup: (args, more = {}) => runCommand(process.execPath, [SUP_BIN, ...args], { env: { ...env, ...more } }),
    daemonPid: () => readPid(join(home, 'daemon.pid')),
    async close () {
      const pid = self.daemonPid()
      const tree = pid && isAlive(pid) ? treeOf(pid) : []
      await runCommand(process.execPath, [SUP_BIN, 'kill'], { env, timeout: 20_000 })
      killAll(tree.filter(isAlive))
      rmSync(home, { recursive: true, force: true })
    }
  }
  ctx.defer(() => self.close())
  return self
}

/** Is PM2 installed for the bench (npm run bench:setup)? */
export const pm2Installed = () => existsSync(PM2_BIN)

/**
 * A PM2 of its own: PM2_HOME in a temp dir; its daemon is killed afterwards.
 * @param {import('../run.js').BenchContext} ctx
 */
export function pm2Home (ctx) {
  const home = mkdtempSync(join(tmpdir(), 'pm2-bench-'))
  const env = { ...process.env, PM2_HOME: home, PM2_SILENT: 'true' }
  const self = {
    home,
    env,
    /** @param {string[]} args @param {Record<string, string>} [more] */
    pm2: (args, more = {}) => runCommand(process.execPath, [PM2_BIN, ...args], { env: { ...env, ...more } }),
    daemonPid: () => readPid(join(home, 'pm2.pid')),
    async close () {
      const pid = self.daemonPid()
      const tree = pid && isAlive(pid) ? treeOf(pid) : []
      await runCommand(process.execPath, [PM2_BIN, 'kill'], { env, timeout: 20_000 })
      killAll(tree.filter(isAlive))
      rmSync(home, { recursive: true, force: true })
    }
  }
  ctx.defer(() => self.close())
  return self
}

/**
 * The seeds' hand-written primary: `workers` copies of `script`, re-forked on exit.
 * @param {import('../run.js').BenchContext} ctx
 * @param {{ script: string, port: number, workers?: number, sched?: 'rr' | 'none' }} options
 */
export function startPrimary (ctx, { script, port, workers = 2, sched = 'rr' }) {
  const proc = startProcess(process.execPath, [app('primary.cjs')], {
    ...process.env, APP: script, PORT: String(port), WORKERS: String(workers), SCHED: sched
  })
  const stop = async () => {
    const tree = treeOf(proc.pid)
    await proc.stop()
    killAll(tree.filter(isAlive))
    await waitForGone(tree)
  }
  ctx.defer(stop)
  return { ...proc, stop }
}

/**
 * `node script` on its own.
 * @param {import('../run.js').BenchContext} ctx
 * @param {{ script: string, port: number }} options
 */
export function startPlain (ctx, { script, port }) {
  const proc = startProcess(process.execPath, [script], { ...process.env, PORT: String(port) })
  ctx.defer(() => proc.stop())
  return proc
}
