// @ts-check
// The host's totals for monit's header: CPU busy since the last call (all cores), memory in
// use, load averages. monit talks to the daemon over a local socket, so the host is this one.
import os from 'node:os'

/**
 * @typedef {{ cpu: number | null, cores: number, used: number, total: number, load: number[] }} HostTotals
 *   cpu: percent of all cores busy since the previous sample (null on the first)
 */

/** @param {os.CpuInfo[]} cpus */
function times (cpus) {
  let idle = 0
  let total = 0
  for (const { times: t } of cpus) {
    idle += t.idle
    total += t.user + t.nice + t.sys + t.idle + t.irq
  }
  return { idle, total }
}

/**
 * A sampler: each call returns the totals since the previous call.
 * @param {{ cpus?: () => os.CpuInfo[], totalmem?: () => number, freemem?: () => number, loadavg?: () => number[] }} [source] os by default (tests pass their own)
 * @returns {() => HostTotals}
 */
export function createHostSampler (source = os) {
  const { cpus = os.cpus, totalmem = os.totalmem, freemem = os.freemem, loadavg = os.loadavg } = source
  /** @type {{ idle: number, total: number } | null} */
  let last = null
  return () => {
    const list = cpus()
    const now = times(list)
    const spent = last ? now.total - last.total : 0
    const cpu = last && spent > 0 ? Math.max(0, Math.min(100, 100 * (1 - (now.idle - last.idle) / spent))) : null
    last = now
    const total = totalmem()
    return { cpu, cores: list.length, used: total - freemem(), total, load: loadavg() }
  }
}
