// @ts-check
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { inheritableFds, parseFdList } from '../../../ipc/inherited-fds.js'

const IPC = fileURLToPath(new URL('../../../ipc/inherited-fds.js', import.meta.url))
const DAEMON = fileURLToPath(new URL('../../../daemon/stray-fds.js', import.meta.url))
const linux = process.platform !== 'linux' && '/proc'

/**
 * Run `code` in a node child that inherits `fd` as its fd 20; its stdout, parsed.
 * @param {string} code
 * @param {number} fd
 */
function inChild (code, fd) {
  const stdio = /** @type {Array<'ignore' | 'pipe' | 'inherit' | number>} */ (['ignore', 'pipe', 'inherit', ...Array.from({ length: 17 }, () => 'ignore'), fd])
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', code], { stdio, encoding: 'utf8' })
  assert.equal(result.status, 0)
  return JSON.parse(result.stdout)
}

test('inheritableFds: a descriptor inherited without close-on-exec is found; one node opens is not', { skip: linux }, (t) => {
  const fd = openSync('/dev/null', 'r')
  t.after(() => closeSync(fd))
  const code = `import { inheritableFds } from ${JSON.stringify(IPC)}; import { openSync } from 'node:fs'
    const own = openSync('/dev/null', 'r')
    console.log(JSON.stringify({ seen: inheritableFds(), own }))`
  const { seen, own } = inChild(code, fd)
  // Whatever else is there came from outside this test too (this process has it as well).
  const ours = new Set(inheritableFds())
  assert.ok(seen.includes(20), JSON.stringify(seen))
  assert.ok(!seen.includes(own))
  assert.deepEqual(seen.filter((/** @type {number} */ n) => n !== 20 && !ours.has(n)), [])
})

test('closeStrayFds closes the descriptors named that are still inherited ones; not those kept, not close-on-exec ones of its own', { skip: linux }, (t) => {
  const fd = openSync('/dev/null', 'r')
  t.after(() => closeSync(fd))
  const code = `import { closeStrayFds } from ${JSON.stringify(DAEMON)}; import { inheritableFds } from ${JSON.stringify(IPC)}; import { openSync } from 'node:fs'
    const own = openSync('/dev/null', 'r') // close-on-exec: named by mistake, it stays
    const kept = closeStrayFds({ listed: [20], keep: [20] })
    const closed = closeStrayFds({ listed: [20, own, 2, 999], keep: [] })
    console.log(JSON.stringify({ closed, kept, left: inheritableFds().includes(20), own }))`
  const { closed, kept, left } = inChild(code, fd)
  assert.deepEqual(closed, [20])
  assert.deepEqual(kept, [])
  assert.equal(left, false)
})

test('parseFdList: numbers from 3 up, or nothing', () => {
  assert.deepEqual(parseFdList('30,251'), [30, 251])
  assert.deepEqual(parseFdList(undefined), [])
  assert.deepEqual(parseFdList('1,2,3'), [3])
  assert.deepEqual(parseFdList('3; rm -rf /'), [])
  assert.deepEqual(parseFdList(''), [])
})
