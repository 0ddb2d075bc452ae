// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import pino from 'pino'
import { agentIntervalFor, delayToSlot, emptyUsage, metricsEvent, Sampler } from '../../../../daemon/metrics/sampler.js'

/**
 * A worker as the sampler sees it, with what the daemon's stores keep of it beside it (the
 * test reads them off the worker).
 * @param {number} id
 * @param {number | null} pid
 */
function fakeWorker (id, pid) {
  const worker = {
    id,
    state: { pid },
    usage: emptyUsage(),
    agent: /** @type {import('../../../../daemon/metrics/sampler.js').AgentSnapshot | null} */ (null),
    row: () => /** @type {any} */ ({ id, name: 'app', instance: id, pid: worker.state.pid, status: 'online', cpu: worker.usage.cpu, memory: worker.usage.memory })
  }
  return worker
}

/** @type {import('../../../../daemon/metrics/sampler.js').SamplerStores} the stores, as fields of the fake workers */
const onTheWorkers = {
  usage: { get: (w) => w.usage, set: (w, usage) => { w.usage = usage } },
  agent: { get: (w) => w.agent }
}

/**
 * A sampler over fake workers, a fake process table and a clock the test moves.
 * @param {ReturnType<typeof fakeWorker>[]} workers
 * @param {{ trees: Map<number, number[]>, table: Map<number, { ctime: number, memory: number }> }} machine
 */
function setUp (workers, machine) {
  const clock = { now: 10_000 }
  /** @type {number[][]} */
  const reads = []
  const sampler = new Sampler({
    workers: () => workers,
    interval: 1000,
    logger: pino({ level: 'silent' }),
    stores: onTheWorkers,
    now: () => clock.now,
    walker: { walk: async (roots) => new Map(roots.map((r) => [r, machine.trees.get(r) ?? []])), close () {} },
    reader: {
      read: async (pids) => {
        reads.push(pids)
        return new Map(pids.filter((p) => machine.table.has(p)).map((p) => [p, /** @type {any} */ (machine.table.get(p))]))
      },
      close () {}
    }
  })
  /** @type {any[]} */
  const emitted = []
  sampler.on('sample', (worker) => emitted.push(metricsEvent(worker.row(), worker.usage)))
  return { sampler, clock, reads, emitted }
}

describe('Sampler', () => {
  test('sums each worker\'s whole tree, in one read for all workers', async () => {
    const a = fakeWorker(0, 100)
    const b = fakeWorker(1, 200)
    const machine = {
      trees: new Map([[100, [101, 102]], [200, []]]),
      table: new Map([[100, { ctime: 100, memory: 1000 }], [101, { ctime: 50, memory: 300 }], [102, { ctime: 0, memory: 200 }], [200, { ctime: 10, memory: 700 }]])
    }
    const { sampler, clock, reads } = setUp([a, b], machine)
    await sampler.sample()
    assert.deepEqual(reads, [[100, 101, 102, 200]])
    assert.equal(a.usage.memory, 1500)
    assert.equal(a.usage.processes, 3)
    machine.table.set(100, { ctime: 400, memory: 1000 })
    machine.table.set(101, { ctime: 150, memory: 300 })
    clock.now += 1000
    await sampler.sample()
    assert.equal(a.usage.cpu, 40)
    assert.equal(a.usage.cpu_seconds, 0.55)
    assert.equal(b.usage.cpu, 0)
    assert.deepEqual(sampler.histories.get(0)?.last().cpu, [0, 40])
  })

  test('a worker without a process is not sampled', async () => {
    const stopped = fakeWorker(0, null)
    const { sampler, reads, emitted } = setUp([stopped], { trees: new Map(), table: new Map() })
    await sampler.sample()
    assert.deepEqual(reads, [])
    assert.deepEqual(emitted, [])
    assert.equal(stopped.usage.time, null)
  })

  test('agents report on a multiple of the sampling interval, at least every 5 s', () => {
    assert.deepEqual([1000, 500, 700, 5000, 60_000, 0].map(agentIntervalFor), [5000, 5000, 5600, 5000, 60_000, 0])
  })

  test('merges a fresh agent report, and drops one older than three agent intervals', async () => {
    const w = fakeWorker(0, 100)
    const { sampler, clock, emitted } = setUp([w], { trees: new Map(), table: new Map([[100, { ctime: 1, memory: 1 }]]) })
    w.agent = { loop_delay: { p50: 1, p99: 7, max: 9 }, heap: { used: 5, total: 8 }, handles: 3, at: clock.now - 500 }
    await sampler.sample()
    assert.deepEqual({ loop: emitted[0].loop_delay, heap: emitted[0].heap, handles: emitted[0].handles }, { loop: { p50: 1, p99: 7, max: 9 }, heap: { used: 5, total: 8 }, handles: 3 })
    clock.now += 14_000
    await sampler.sample()
    assert.equal(emitted[1].heap?.used, 5, 'kept between the agent\'s reports')
    clock.now += 1001
    await sampler.sample()
    assert.deepEqual({ loop: emitted[2].loop_delay, heap: emitted[2].heap, handles: emitted[2].handles }, { loop: null, heap: null, handles: null })
    assert.deepEqual(sampler.histories.get(0)?.last().loop_p99, [7, 7, null])
  })

  test('a worker replaced during the read keeps its figures for the new process', async () => {
    const w = fakeWorker(0, 100)
    const machine = { trees: new Map(), table: new Map([[100, { ctime: 1, memory: 1 }]]) }
    const { sampler, emitted } = setUp([w], machine)
    const read = sampler.reader.read
    sampler.reader.read = async (pids) => {
      w.state.pid = 300
      return read(pids)
    }
    await sampler.sample()
    assert.deepEqual(emitted, [])
    assert.equal(w.usage.time, null)
  })

  test('forgets the history of workers that are gone', async () => {
    const workers = [fakeWorker(0, 100), fakeWorker(1, 200)]
    const { sampler } = setUp(workers, { trees: new Map(), table: new Map([[100, { ctime: 1, memory: 1 }], [200, { ctime: 1, memory: 1 }]]) })
    await sampler.sample()
    assert.deepEqual([...sampler.histories.keys()], [0, 1])
    workers.pop()
    await sampler.sample()
    assert.deepEqual([...sampler.histories.keys()], [0])
  })

  test('a pass that overlaps the previous one is skipped', async () => {
    const w = fakeWorker(0, 100)
    const { sampler, reads } = setUp([w], { trees: new Map(), table: new Map([[100, { ctime: 1, memory: 1 }]]) })
    await Promise.all([sampler.tick(), sampler.tick()])
    assert.equal(reads.length, 1)
    assert.equal(sampler.skipped, 1)
  })
})

describe('delayToSlot', () => {
  /** @type {Array<[number, number, number, number]>} now, interval, offset → delay */
  const rows = [
    [10_000, 1000, 50, 50],
    [10_049, 1000, 50, 1],
    [10_050, 1000, 50, 1000],
    [10_051, 1000, 50, 999],
    [10_999, 1000, 50, 51],
    [12_345, 500, 0, 155],
    [20, 1000, 50, 30]
  ]
  for (const [now, interval, offset, delay] of rows) {
    test(`at ${now}, every ${interval} ms + ${offset}: in ${delay} ms`, () => assert.equal(delayToSlot(now, interval, offset), delay))
  }
})
