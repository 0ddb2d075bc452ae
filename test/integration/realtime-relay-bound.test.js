// @ts-check
// The relay of @socket.io/cluster-adapter messages under a flood (issue 23): a worker that
// reads nothing while another floods must not make the daemon queue the flood for it. The
// relay drops what would take that worker's backlog past 8 MiB and says so once, as an event.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome, waitForLogLine } from '../helpers/sup.js'
import { waitFor } from '../helpers/wait.js'

const FLOOD_MB = 32

/** @param {number} pid */
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024

test(`a worker that reads nothing while another floods ${FLOOD_MB} MiB of adapter messages: dropped for it past the bound, one relay-drop event`, { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'adapter-flood.js'), '-i', '2', '--name', 'flood', '--kill-timeout', '1000'], { env: { FLOOD_MB: String(FLOOD_MB) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForLogLine(home, 'flood', /^blocked$/, { timeout: 30_000 })
  await waitForLogLine(home, 'flood', /^ready to flood$/, { timeout: 30_000 })
  const daemon = JSON.parse((await home.sup(['ping', '--json'])).stdout).pid
  const before = rssMiB(daemon)
  const rows = await home.ls()
  const flooder = /** @type {import('../../ipc/methods.js').WorkerRow} */ (rows.find((r) => r.instance === 0))
  const stuck = /** @type {import('../../ipc/methods.js').WorkerRow} */ (rows.find((r) => r.instance === 1))

  const signal = await home.sup(['signal', 'SIGUSR2', String(flooder.id)])
  assert.equal(signal.code, 0, signal.stderr)
  await waitForLogLine(home, 'flood', /^flooded \d+ messages$/, { timeout: 60_000 })
  const after = rssMiB(daemon)
  t.diagnostic(`daemon RSS ${before.toFixed(1)} MiB before the flood, ${after.toFixed(1)} MiB after ${FLOOD_MB} MiB relayed to a worker that reads nothing`)

  /** @returns {Promise<Array<{ kind: string, id: number | null, instance: number | null }>>} */
  const events = async () => (await home.sup(['events', 'flood', '--json'])).stdout.split('\n').filter(Boolean).map((line) => JSON.parse(line))
  await waitFor(async () => (await events()).some((e) => e.kind === 'relay-drop'), { what: 'a relay-drop event', timeout: 15_000 })
  const drops = (await events()).filter((e) => e.kind === 'relay-drop')
  assert.deepEqual(drops.map((e) => e.instance), [stuck.instance], 'once, for the worker that reads nothing')
})
