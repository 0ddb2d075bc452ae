// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { describe, test } from 'node:test'
import { ProcessTable, TOKEN_VAR, listDescendants, listProcesses, parseStat, readProcess, sendSignal, signalRecorded } from '../../../../daemon/worker/process-tree.js'
import { waitForEvent } from '../../../helpers/wait.js'

/** @typedef {import('../../../../daemon/worker/process-tree.js').ProcInfo} ProcInfo */

/**
 * A /proc/<pid>/stat line as Linux writes it (52 fields), with the fields we care about set.
 * @param {{ pid: number, comm: string, ppid: number, starttime: string }} fields
 */
function statLine ({ pid, comm, ppid, starttime }) {
  // Fields 3.. in order: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt
  // cmajflt utime stime cutime cstime priority nice num_threads itrealvalue starttime vsize rss ...
  const rest = ['S', ppid, pid, pid, 0, -1, 4194560, 1234, 0, 3, 0, 15, 7, 0, 0, 20, 0, 11, 0, starttime, 1_185_783_808, 12_345]
  while (rest.length < 50) rest.push(0)
  return `${pid} (${comm}) ${rest.join(' ')}\n`
}

describe('parseStat', () => {
  /** @type {Array<[string, string]>} */
  const names = [
    ['a plain name', 'node'],
    ['spaces', 'my app worker'],
    ['parentheses', 'my (weird) app'],
    ['a closing parenthesis then a space', 'a) 9 9 (b'],
    ['only parentheses', ')('],
    ['an empty name', '']
  ]
  for (const [name, comm] of names) {
    test(`a command name with ${name}: ${JSON.stringify(comm)}`, () => {
      const text = statLine({ pid: 1234, comm, ppid: 1, starttime: '987654' })
      assert.deepEqual(parseStat(1234, text), { pid: 1234, ppid: 1, startTime: '987654', pgid: 1234, state: 'S' })
    })
  }

  test('a real line from this machine', { skip: process.platform !== 'linux' && 'needs /proc' }, async () => {
    const { readFile } = await import('node:fs/promises')
    const info = parseStat(process.pid, await readFile('/proc/self/stat', 'latin1'))
    assert.equal(info.pid, process.pid)
    assert.equal(info.ppid, process.ppid)
    assert.match(info.startTime, /^\d+$/)
  })
})

describe('listDescendants (given a process list)', () => {
  /** @param {number} pid @param {number} ppid @returns {ProcInfo} */
  const proc = (pid, ppid) => ({ pid, ppid, startTime: `t${pid}` })
  //  1 ─ 100 ─┬─ 110 ─── 111
  //           └─ 120
  //  1 ─ 200 ─── 210            (unrelated)
  const tree = [proc(1, 0), proc(100, 1), proc(200, 1), proc(110, 100), proc(120, 100), proc(111, 110), proc(210, 200)]

  /** @type {Array<[string, number, ProcInfo[], number[]]>} [name, root, processes, expected pids in order] */
  const cases = [
    ['a tree of depth 3, nearest first', 100, tree, [110, 120, 111]],
    ['a leaf has none', 111, tree, []],
    ['a middle node', 110, tree, [111]],
    ['another branch leaves the first out', 200, tree, [210]],
    ['an unknown root has none', 999, tree, []],
    ['an empty list', 100, [], []],
    ['a cycle back to the root stops', 100, [proc(100, 300), proc(300, 100)], [300]],
    ['a cycle below the root stops', 100, [proc(110, 100), proc(111, 110), { pid: 110, ppid: 111, startTime: 'again' }], [110, 111]]
  ]
  for (const [name, root, processes, expected] of cases) {
    test(name, async () => {
      const found = await listDescendants(root, processes)
      assert.deepEqual(found.map((p) => p.pid), expected)
    })
  }

  test('returns the records themselves, start time included', async () => {
    assert.deepEqual(await listDescendants(110, tree), [proc(111, 110)])
  })
})

describe('on this machine', { skip: process.platform === 'win32' && 'POSIX only' }, () => {
  /**
   * Start `sleep 5`, killed after the test.
   * @param {import('node:test').TestContext} t
   */
  async function startSleeper (t) {
    const child = spawn('sleep', ['5'], { stdio: 'ignore' })
    t.after(() => { child.kill('SIGKILL') })
    await waitForEvent(child, 'spawn', { what: 'child spawn' })
    return /** @type {import('node:child_process').ChildProcess & { pid: number }} */ (child)
  }

  test('listMarked finds processes by their token, wherever they are; sweeps at once share a scan', { skip: process.platform !== 'linux' && 'reads /proc' }, async (t) => {
    /** @param {string} token */
    const marked = async (token) => {
      const child = spawn('sleep', ['5'], { stdio: 'ignore', env: { PATH: process.env.PATH, [TOKEN_VAR]: token } })
      t.after(() => { child.kill('SIGKILL') })
      await waitForEvent(child, 'spawn', { what: 'child spawn' })
      return /** @type {number} */ (child.pid)
    }
    const a = await marked('t-a')
    const b = await marked('t-ab')
    const since = (await readProcess(a))?.startTime ?? null
    const table = new ProcessTable()
    const [foundA, foundB, none] = await Promise.all([table.marked('t-a', since), table.marked('t-ab', since), table.marked('t-other', since)])
    assert.deepEqual(foundA.map((p) => p.pid), [a], 'exact token, not a prefix of another')
    assert.deepEqual(foundB.map((p) => p.pid), [b])
    assert.deepEqual(none, [])
    // A start time after the process's own: it is not the worker's (a reused token cannot reach back).
    assert.deepEqual(await table.marked('t-a', String(Number(since) + 1e9)), [])
  })

  test('listProcesses includes this process', async () => {
    const me = (await listProcesses()).find((p) => p.pid === process.pid)
    assert.ok(me)
    assert.equal(me.ppid, process.ppid)
  })

  test('listDescendants(process.pid) includes a child we spawned', async (t) => {
    const child = await startSleeper(t)
    const found = await listDescendants(process.pid)
    const record = found.find((p) => p.pid === child.pid)
    assert.ok(record, `pid ${child.pid} not among ${found.map((p) => p.pid)}`)
    assert.equal(record.ppid, process.pid)
  })

  test('signalRecorded leaves alone a pid whose start time differs', async (t) => {
    const child = await startSleeper(t)
    const [record] = (await listDescendants(process.pid)).filter((p) => p.pid === child.pid)
    assert.ok(record)
    const count = await signalRecorded([{ ...record, startTime: `${record.startTime}0` }], 'SIGTERM')
    assert.equal(count, 0)
    assert.equal(child.exitCode, null)
    assert.equal(child.signalCode, null)
    assert.ok(sendSignal(child.pid, 0), 'still running')
  })

  test('signalRecorded signals a pid whose start time matches', async (t) => {
    const child = await startSleeper(t)
    const [record] = (await listDescendants(process.pid)).filter((p) => p.pid === child.pid)
    assert.ok(record)
    const exited = waitForEvent(child, 'exit', { what: 'child exit' })
    assert.equal(await signalRecorded([record], 'SIGTERM'), 1)
    assert.deepEqual(await exited, [null, 'SIGTERM'])
  })

  test('signalRecorded of nothing signals nothing', async () => {
    assert.equal(await signalRecorded([], 'SIGKILL'), 0)
  })

  test('sendSignal reports a process that is gone', async (t) => {
    const child = await startSleeper(t)
    const exited = waitForEvent(child, 'exit', { what: 'child exit' })
    child.kill('SIGKILL')
    await exited
    assert.equal(sendSignal(child.pid, 0), false)
  })
})

test('calls in one tick share one scan; a later tick scans again', async () => {
  const table = new ProcessTable()
  const first = table.scan()
  const second = table.scan()
  assert.equal(first, second)
  await first
  const later = table.scan()
  assert.notEqual(later, first)
  await later
})

test('two tables share nothing (two daemons in one process); a bare listProcesses is always a scan of its own', async () => {
  const a = new ProcessTable()
  const b = new ProcessTable()
  const first = a.scan()
  assert.notEqual(b.scan(), first)
  assert.notEqual(listProcesses(), listProcesses())
  await first
})
