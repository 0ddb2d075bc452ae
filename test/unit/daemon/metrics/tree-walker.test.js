// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { createTreeWalker, ProcChildrenWalker, ScanningWalker, TASKS_RELIST_MS } from '../../../../daemon/metrics/tree-walker.js'
import { waitForEvent } from '../../../helpers/wait.js'

/**
 * A child that starts a grandchild and prints its pid, so the test knows the whole tree.
 * @param {import('node:test').TestContext} t
 */
async function spawnTree (t) {
  const script = "const c = require('node:child_process').spawn('sleep', ['30'], { stdio: 'ignore' }); console.log(c.pid); setInterval(() => {}, 1000)"
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => child.kill('SIGKILL'))
  const [line] = await waitForEvent(child.stdout, 'data', { what: 'child stdout data' })
  const grandchild = Number(String(line).trim())
  t.after(() => { try { process.kill(grandchild, 'SIGKILL') } catch {} })
  return { child: /** @type {number} */ (child.pid), grandchild }
}

const walkers = [
  ['ProcChildrenWalker', () => new ProcChildrenWalker('/proc'), process.platform !== 'linux' && 'needs /proc'],
  ['ScanningWalker', () => new ScanningWalker(Date.now), false]
]

for (const [name, make, skip] of /** @type {Array<[string, () => import('../../../../daemon/metrics/tree-walker.js').TreeWalker, string | false]>} */ (walkers)) {
  describe(name, { skip }, () => {
    test('finds a child\'s child', async (t) => {
      const { child, grandchild } = await spawnTree(t)
      const walker = make()
      t.after(() => walker.close())
      const trees = await walker.walk([child])
      assert.deepEqual(trees.get(child), [grandchild])
    })

    test('a pid that is gone has no descendants', async (t) => {
      const walker = make()
      t.after(() => walker.close())
      const gone = spawn(process.execPath, ['-e', ''])
      await waitForEvent(gone, 'exit', { what: 'gone exit' })
      const pid = /** @type {number} */ (gone.pid)
      const trees = await walker.walk([pid])
      assert.deepEqual(trees.get(pid), [])
    })
  })
}

test('the Linux walker keeps files open only for the processes it still walks', { skip: process.platform !== 'linux' && 'needs /proc' }, async (t) => {
  const { child } = await spawnTree(t)
  const walker = new ProcChildrenWalker('/proc')
  t.after(() => walker.close())
  await walker.walk([child])
  assert.ok(walker.files.fds.size > 0)
  await walker.walk([])
  assert.equal(walker.files.fds.size, 0)
})

test('createTreeWalker picks the /proc walker on Linux', { skip: process.platform !== 'linux' && 'needs /proc' }, () => {
  const walker = createTreeWalker()
  assert.ok(walker instanceof ProcChildrenWalker)
  walker.close()
})

test('ProcChildrenWalker reads the main thread\'s children every walk, the other threads\' with their listing every TASKS_RELIST_MS', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'sup-fake-proc-'))
  t.after(() => rmSync(root, { recursive: true, force: true }))
  /** @param {number} pid @param {number} tid @param {string} children */
  const task = (pid, tid, children) => {
    mkdirSync(join(root, String(pid), 'task', String(tid)), { recursive: true })
    writeFileSync(join(root, String(pid), 'task', String(tid), 'children'), children)
  }
  let clock = 0
  const walker = new ProcChildrenWalker(root, () => clock)
  t.after(() => walker.close())
  task(100, 100, '200 ')
  task(200, 200, '')
  assert.deepEqual((await walker.walk([100])).get(100), [200])
  task(100, 100, '200 201 ') // the main thread forks again: seen at once
  task(201, 201, '')
  task(100, 101, '300 ') // a new thread forks: seen once the threads are listed again
  task(300, 300, '')
  assert.deepEqual((await walker.walk([100])).get(100), [200, 201])
  clock += TASKS_RELIST_MS
  assert.deepEqual((await walker.walk([100])).get(100), [200, 201, 300])
  task(100, 101, '300 301 ') // a known other thread forks: counted at the next listing
  task(301, 301, '')
  task(100, 100, '200 ') // 201 exits: gone from the main thread's file at once
  assert.deepEqual((await walker.walk([100])).get(100), [200, 300])
  clock += TASKS_RELIST_MS
  assert.deepEqual((await walker.walk([100])).get(100), [200, 300, 301])
  rmSync(join(root, '100', 'task', '101'), { recursive: true }) // that thread ends
  clock += TASKS_RELIST_MS
  assert.deepEqual((await walker.walk([100])).get(100), [200])
})
