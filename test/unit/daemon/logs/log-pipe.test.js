// @ts-check
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { closeSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { LogPipes, pipeSlots } from '../../../../daemon/logs/log-pipe.js'
import { batchReads, pipeTarget } from '../../../../daemon/logs/batch-reads.js'

/** @param {import('node:test').TestContext} t */
function privateDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-test-pipes-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** @param {import('node:test').TestContext} t @param {LogPipes} pipes */
const closeAtEnd = (t, pipes) => t.after(() => pipes.close())

describe('LogPipes', () => {
  test('a reserve makes pipes ahead (and two more for restarts), leaving nothing on disk; take gives them out', async (t) => {
    const dir = privateDir(t)
    const pipes = new LogPipes({ dir: () => dir })
    closeAtEnd(t, pipes)
    await pipes.reserve(3)
    assert.equal(pipes.stock.length, 5)
    assert.deepEqual(readdirSync(dir), [], 'the FIFOs and their directory are gone once opened')
    const pair = pipes.take()
    assert.ok(pair)
    t.after(() => { pair.out.readable.destroy(); pair.err.readable.destroy() })
    assert.equal(pipes.stock.length, 4)
    // The fds are pipes, and hold Linux's default 16 pages (pipe-user-pages-soft is far off here).
    assert.match(readlinkSync(`/proc/self/fd/${pair.out.write}`), /\(deleted\)$/)
    assert.equal(statSync(`/proc/self/fd/${pair.out.write}`).isFIFO(), true)
    assert.equal(pipeSlots(pair.out.readable), 16)
    assert.equal(pipeSlots(pair.err.readable), 16)
  })

  test('a program writing to the write end: its lines in order, then the end once it exits (the daemon closed its copy)', async (t) => {
    const pipes = new LogPipes({ dir: () => privateDir(t) })
    closeAtEnd(t, pipes)
    await pipes.reserve(1)
    const pair = pipes.take()
    assert.ok(pair)
    // A program that is not Node: its stdout must be blocking (a full pipe waits, never EAGAIN).
    const child = spawn('sh', ['-c', 'i=1; while [ $i -le 3000 ]; do echo "line $i"; i=$((i+1)); done; echo oops >&2'], { stdio: ['ignore', pair.out.write, pair.err.write] })
    t.after(() => child.kill('SIGKILL'))
    pipes.close()
    closeSync(pair.out.write)
    closeSync(pair.err.write)
    batchReads(pair.out.readable)
    let out = ''
    let err = ''
    pair.out.readable.on('data', (chunk) => { out += chunk })
    pair.err.readable.on('data', (chunk) => { err += chunk })
    await Promise.all([once(pair.out.readable, 'end'), once(pair.err.readable, 'end'), once(child, 'exit')])
    assert.deepEqual(out.split('\n').slice(0, -1), Array.from({ length: 3000 }, (_, i) => `line ${i + 1}`))
    assert.equal(err, 'oops\n')
  })

  test('take after the stock runs out gives null (socket pairs for that worker) and tops the stock up behind it', async (t) => {
    const pipes = new LogPipes({ dir: () => privateDir(t) })
    closeAtEnd(t, pipes)
    const pair = pipes.take()
    assert.equal(pair, null)
    assert.ok(pipes.filling, 'a batch is being made')
    await pipes.filling
    assert.equal(pipes.stock.length, 2)
  })

  test('without mkfifo: every worker gets socket pairs, and the daemon is told why once', async (t) => {
    /** @type {string[]} */
    const warnings = []
    const pipes = new LogPipes({ mkfifo: '/nonexistent/mkfifo', dir: () => privateDir(t), warn: (message) => warnings.push(message) })
    await pipes.reserve(2)
    assert.equal(pipes.take(), null)
    await pipes.reserve(2)
    assert.equal(pipes.take(), null)
    assert.equal(warnings.length, 1)
    assert.match(warnings[0], /socket pairs, not pipes: .*ENOENT/)
  })
})

describe('pipeTarget', () => {
  test('40 % of a pipe\'s pages: lines that fit in them at the stream\'s line length, and their bytes', () => {
    // 17 lines of 230 bytes fit in a 4 KiB page; 6.4 pages.
    assert.deepEqual(pipeTarget(16, 230), { lines: 108, bytes: 26214 })
    // A line just over half a page takes a page of its own.
    assert.deepEqual(pipeTarget(16, 2049), { lines: 6, bytes: 26214 })
    // A pipe Linux cut to 2 pages (the user's pipe-user-pages-soft used up): a few lines a read.
    assert.deepEqual(pipeTarget(2, 230), { lines: 13, bytes: 3276 })
  })
})
