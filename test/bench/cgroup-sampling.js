#!/usr/bin/env node
// @ts-check
// The daemon's CPU per sampling pass, reading each worker from its cgroup against walking
// /proc (issue 24), in one run over the same processes: N workers, each `sh` with a `sleep`
// child (a tree of two), all placed in cgroups as the daemon places them; then passes of the
// daemon's own Sampler alternate between the two ways, timed with process.cpuUsage().
// Needs root and a cgroup fs sup may write.
//   node test/bench/cgroup-sampling.js [--workers 8,100] [--passes 30]
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { Cgroups } from '../../daemon/cgroups/cgroups.js'
import { Sampler } from '../../daemon/metrics/sampler.js'
import { appConfig } from '../helpers/fake-effects.js'

const { values } = parseArgs({ options: { workers: { type: 'string', default: '8,100' }, passes: { type: 'string', default: '30' } } })
const quiet = /** @type {any} */ ({ info () {}, warn () {}, error () {}, debug () {}, child () { return quiet } })

/** @param {number[]} list */
const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]

/**
 * @param {number} count
 * @param {number} passes
 */
async function measure (count, passes) {
  const home = mkdtempSync(join(tmpdir(), 'sup-bench-cgroups-'))
  const cgroups = new Cgroups({ home, logger: quiet })
  if (!cgroups.enabled) throw new Error(`no cgroups: ${cgroups.reason}`)
  const children = Array.from({ length: count }, () => spawn('/bin/sh', ['-c', 'sleep 9999 & wait'], { stdio: 'ignore' }))
  try {
    const config = appConfig({ name: 'bench' })
    const leaves = await Promise.all(children.map((child) => cgroups.place(config, /** @type {number} */ (child.pid))))
    // Let each shell start its sleep before the first pass.
    await new Promise((resolve) => setTimeout(resolve, 500))
    /** @param {boolean} fromCgroup */
    const sampler = (fromCgroup) => {
      const workers = children.map((child, i) => ({ id: i, state: { pid: /** @type {number} */ (child.pid) }, cgroup: fromCgroup ? leaves[i] : null }))
      const usage = new Map()
      return new Sampler({ workers: () => workers, interval: 1000, logger: quiet, stores: { usage: { get: (w) => usage.get(w), set: (w, u) => usage.set(w, u) }, agent: { get: () => null } } })
    }
    const ways = { cgroup: sampler(true), proc: sampler(false) }
    /** @type {Record<string, number[]>} */
    const spent = { cgroup: [], proc: [] }
    for (let pass = 0; pass < passes + 3; pass++) {
      for (const [name, s] of Object.entries(ways)) {
        const before = process.cpuUsage()
        await s.sample()
        const used = process.cpuUsage(before)
        // The first passes open files and warm the JIT: not counted.
        if (pass >= 3) spent[name].push((used.user + used.system) / 1000)
      }
    }
    for (const s of Object.values(ways)) s.stop()
    return { count, processes: count * 2, cgroup: median(spent.cgroup), proc: median(spent.proc) }
  } finally {
    for (const child of children) child.kill('SIGKILL')
    await cgroups.endPrevious()
    cgroups.close()
    rmSync(home, { recursive: true, force: true })
  }
}

const passes = Number(values.passes)
console.log(`daemon CPU per sampling pass (median of ${passes}, ms), ${new Date().toISOString()}, load average ${(await import('node:os')).loadavg()[0].toFixed(1)}`)
console.log('workers  processes  cgroup  /proc walk  ratio')
for (const count of values.workers.split(',').map(Number)) {
  const r = await measure(count, passes)
  console.log(`${String(r.count).padStart(7)}  ${String(r.processes).padStart(9)}  ${r.cgroup.toFixed(2).padStart(6)}  ${r.proc.toFixed(2).padStart(10)}  ${(r.proc / r.cgroup).toFixed(1).padStart(5)}x`)
}
