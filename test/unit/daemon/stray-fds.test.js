// @ts-check
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { inheritableFds } from '../../../daemon/stray-fds.js'

const MODULE = fileURLToPath(new URL('../../../daemon/stray-fds.js', import.meta.url))

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

test('inheritableFds: a descriptor inherited without close-on-exec is found; node\'s own are not', { skip: process.platform !== 'linux' && '/proc' }, (t) => {
  const fd = openSync('/dev/null', 'r')
  t.after(() => closeSync(fd))
  const seen = inChild(`import { inheritableFds } from ${JSON.stringify(MODULE)}; console.log(JSON.stringify(inheritableFds()))`, fd)
  // Whatever else is there came from outside this test too (this process had it inheritable).
  const ours = new Set(inheritableFds())
  assert.ok(seen.includes(20), JSON.stringify(seen))
  assert.deepEqual(seen.filter((n) => n !== 20 && !ours.has(n)), [])
})

test('closeStrayFds closes what was inherited, keeps what it is told to, and a child started after inherits neither', { skip: process.platform !== 'linux' && '/proc' }, (t) => {
  const fd = openSync('/dev/null', 'r')
  t.after(() => closeSync(fd))
  const code = `import { closeStrayFds, inheritableFds } from ${JSON.stringify(MODULE)}
    import { openSync } from 'node:fs'
    // Node opens its own close-on-exec: this one stays open and out of the list.
    const own = openSync('/dev/null', 'r')
    const closed = closeStrayFds({ keep: [] })
    console.log(JSON.stringify({ closed, left: inheritableFds(), own }))`
  const { closed, left, own } = inChild(code, fd)
  assert.ok(closed.includes(20), JSON.stringify(closed))
  assert.ok(!closed.includes(own))
  assert.deepEqual(left, [])
})

test('closeStrayFds keeps the descriptors it is told to (the IPC channel, socket activation\'s)', { skip: process.platform !== 'linux' && '/proc' }, (t) => {
  const fd = openSync('/dev/null', 'r')
  t.after(() => closeSync(fd))
  const code = `import { closeStrayFds, inheritableFds } from ${JSON.stringify(MODULE)}
    closeStrayFds({ keep: [20] })
    console.log(JSON.stringify(inheritableFds()))`
  assert.deepEqual(inChild(code, fd), [20])
})
