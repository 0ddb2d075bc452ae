// @ts-check
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, constants, existsSync, mkdirSync, openSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import pino from 'pino'
import { LogFile } from '../../../../daemon/logs/file.js'
import { rotatedPath } from '../../../../daemon/logs/rotation.js'
import { waitFor, waitForEvent, within } from '../../../helpers/wait.js'

const logger = pino({ level: 'silent' })

/**
 * A fresh folder, removed after the test.
 * @param {import('node:test').TestContext} t
 */
function tempDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-log-file-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/**
 * Every line of every file in `dir` (gzipped ones unpacked), by file.
 * @param {string} dir
 */
function readAll (dir) {
  /** @type {Record<string, string[]>} */
  const files = {}
  for (const name of readdirSync(dir).sort()) {
    if (statSync(join(dir, name)).isDirectory()) continue
    const raw = readFileSync(join(dir, name))
    const text = (name.endsWith('.gz') ? gunzipSync(raw) : raw).toString()
    assert.ok(text === '' || text.endsWith('\n'), `${name} ends with a whole line`)
    files[name] = text.split('\n').slice(0, -1)
  }
  return files
}

/** `count` numbered lines of about 20 bytes, written in chunks of `per`. */
function writeNumbered (/** @type {LogFile} */ file, count, per = 7) {
  for (let n = 0; n < count; n += per) {
    let text = ''
    for (let i = n; i < Math.min(n + per, count); i++) text += `line ${String(i).padStart(8, '0')}\n`
    file.write(text)
  }
}

/** @param {Partial<import('../../../../daemon/logs/file.js').LogFileOptions> & { path: string }} options */
const logFile = (options) => new LogFile({ maxSize: 0, retain: 5, compress: false, logger, ...options })

describe('LogFile rotation', () => {
  test('rotates by size: every line lands in exactly one file, whole, and no file passes the limit', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 200, retain: 1000 })
    writeNumbered(file, 500)
    await file.close()
    const files = readAll(dir)
    const lines = Object.values(files).flat()
    assert.deepEqual(lines.sort(), Array.from({ length: 500 }, (_, i) => `line ${String(i).padStart(8, '0')}`))
    for (const name of Object.keys(files)) assert.ok(statSync(join(dir, name)).size <= 200, `${name} is within the limit`)
    assert.equal(Object.keys(files).length, file.status().rotations + 1)
    assert.ok(file.status().rotations >= Math.floor(500 * 14 / 200) - 1)
  })

  test('the live file and the rotated ones read in order', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 100, retain: 1000 })
    writeNumbered(file, 60, 1)
    await file.close()
    const files = readAll(dir)
    const ordered = [...Object.keys(files).filter((n) => n !== 'a.log').sort(), 'a.log'].flatMap((n) => files[n])
    assert.deepEqual(ordered, Array.from({ length: 60 }, (_, i) => `line ${String(i).padStart(8, '0')}`))
  })

  test('keeps only the newest `retain` rotated files', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 100, retain: 2 })
    writeNumbered(file, 100, 1)
    await file.close()
    const names = readdirSync(dir)
    assert.equal(names.length, 3, names.join(', '))
    assert.ok(file.status().rotations > 2)
    assert.ok(readAll(dir)['a.log'].includes('line 00000099'), 'the newest line is in the live file')
  })

  test('compress: rotated files become .gz and hold the same lines', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 300, retain: 1000, compress: true })
    writeNumbered(file, 200)
    await file.close()
    const names = readdirSync(dir)
    assert.deepEqual(names.filter((n) => n !== 'a.log' && !n.endsWith('.gz')), [], 'no plain rotated file is left')
    assert.equal(names.length, file.status().rotations + 1)
    assert.equal(new Set(Object.values(readAll(dir)).flat()).size, 200)
  })

  test('maxSize 0 never rotates', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 0 })
    writeNumbered(file, 300)
    await file.close()
    assert.deepEqual(readdirSync(dir), ['a.log'])
    assert.equal(file.status().size, 300 * 'line 00000000\n'.length)
  })

  test('appends to an existing file and counts its size toward the limit', async (t) => {
    const dir = tempDir(t)
    writeFileSync(join(dir, 'a.log'), 'x'.repeat(90) + '\n')
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 100, retain: 5 })
    file.write('line 00000001\n')
    await file.close()
    assert.equal(file.status().rotations, 1)
    assert.deepEqual(readAll(dir)['a.log'], ['line 00000001'])
  })

  test('a failed rename keeps the lines in the full file and says so; a later rotation works', async (t) => {
    const dir = tempDir(t)
    let now = Date.UTC(2026, 0, 1)
    const path = join(dir, 'a.log')
    // A folder where the rotated file would go makes the rename fail, even for root.
    mkdirSync(rotatedPath(path, now))
    const file = logFile({ path, maxSize: 50, retain: 1000, now: () => now })
    writeNumbered(file, 10, 1)
    await file.pumping
    assert.equal(file.status().error?.code, 'SUP_ERR_LOG_ROTATE_FAILED')
    assert.match(String(file.status().error?.message), /cannot rotate log file .*a\.log: that path is a folder \(EISDIR\)/)
    assert.equal(readAll(dir)['a.log'].length, 10, 'nothing was lost')
    now += 10_000
    file.write('line 00000010\n')
    await file.close()
    assert.equal(file.status().error, null)
    assert.equal(file.status().rotations, 1)
    assert.deepEqual(readAll(dir)['a.log'], ['line 00000010'])
  })
})

describe('LogFile errors', () => {
  /** @type {Array<[string, (dir: string) => string, RegExp]>} */
  const cases = [
    ['a parent is a file', (dir) => { writeFileSync(join(dir, 'f'), ''); return join(dir, 'f', 'a.log') }, /a parent of that path is a file, not a folder \((ENOTDIR|EEXIST)\)/],
    ['a folder at the path', (dir) => { mkdirSync(join(dir, 'a.log')); return join(dir, 'a.log') }, /that path is a folder \(EISDIR\)/]
  ]
  for (const [name, makePath, reason] of cases) {
    test(`${name}: an error in the status, lines dropped and counted, writers never asked to wait`, async (t) => {
      const path = makePath(tempDir(t))
      const file = logFile({ path })
      assert.equal(file.write('one\ntwo\n'), true)
      await file.pumping
      assert.equal(file.write('three\n'), true)
      const status = file.status()
      assert.equal(status.error?.code, 'SUP_ERR_LOG_UNWRITABLE')
      assert.match(status.error?.message ?? '', reason)
      assert.ok(status.error?.message.includes(path))
      assert.deepEqual([status.dropped_lines, status.dropped_bytes], [3, 14])
      await file.close()
    })
  }

  test('a full disk is its own error', async () => {
    const file = logFile({ path: '/dev/full' })
    file.write('x\n')
    await file.pumping
    assert.equal(file.status().error?.code, 'SUP_ERR_LOG_DISK_FULL')
    assert.match(String(file.status().error?.message), /no space left on the disk \(ENOSPC\)/)
    assert.equal(file.status().dropped_lines, 1)
    await file.close()
  })

  test('once the path works again, writing resumes after a note of what was dropped', async (t) => {
    const dir = tempDir(t)
    let now = 1_000_000
    writeFileSync(join(dir, 'logs'), 'in the way')
    const path = join(dir, 'logs', 'a.log')
    const file = logFile({ path, now: () => now })
    file.write('lost 1\n')
    await file.pumping
    file.write('lost 2\n')
    rmSync(join(dir, 'logs'))
    file.write('lost 3\n')
    assert.equal(file.status().dropped_lines, 3, 'before the retry time nothing is tried')
    now += 5000
    file.write('kept\n')
    await file.close()
    assert.equal(file.status().error, null)
    assert.deepEqual(readFileSync(path, 'utf8').split('\n'), ['sup: 3 line(s) (21 bytes) dropped here: ' + `cannot write log file ${path}: a parent of that path is a file, not a folder (EEXIST); its lines are dropped until it can be written (fix the path or its folder's permissions)`, 'kept', ''])
  })
})

describe('LogFile backpressure', () => {
  test('asks writers to wait past highWater, drops past maxQueued, and drains', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), limits: { highWater: 40, maxQueued: 100 } })
    const answers = []
    for (let i = 0; i < 12; i++) answers.push(file.write(`line ${String(i).padStart(8, '0')}\n`))
    // 14 bytes a line: the 3rd reaches highWater, 7 fit under maxQueued, the rest are dropped.
    assert.deepEqual(answers, [true, true, ...Array(10).fill(false)])
    assert.deepEqual([file.status().dropped_lines, file.status().dropped_bytes], [5, 70])
    await waitForEvent(file, 'drain', { what: 'file drain' })
    assert.equal(file.congested(), false)
    await file.close()
    const lines = readFileSync(join(dir, 'a.log'), 'utf8').split('\n')
    assert.deepEqual(lines, [...Array.from({ length: 7 }, (_, i) => `line ${String(i).padStart(8, '0')}`), 'sup: 5 line(s) (70 bytes) dropped here: the disk did not keep up (more than 100 bytes were waiting)', ''])
  })

  test('a write stuck longer than stallMs: writers are no longer asked to wait', () => {
    let now = 0
    const file = logFile({ path: '/nonexistent/never/opened', now: () => now, limits: { highWater: 10, stallMs: 2000 } })
    file.queue.push(Buffer.from('x'.repeat(20) + '\n'), 'full')
    file.writingSince = 0
    assert.equal(file.congested(), true)
    now = 2000
    assert.equal(file.congested(), false)
  })
})

describe('LogFile truncate', () => {
  test('empties the live file, drops what was waiting, and rotation counts from zero again', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log'), maxSize: 100, retain: 10 })
    writeNumbered(file, 5, 1)
    await file.pumping
    writeNumbered(file, 5, 1)
    await file.truncate()
    assert.equal(statSync(join(dir, 'a.log')).size, 0)
    writeNumbered(file, 5, 1)
    await file.close()
    assert.equal(file.status().rotations, 0)
    assert.equal(readAll(dir)['a.log'].length, 5)
  })

  test('writes after close are ignored, and close is safe twice', async (t) => {
    const dir = tempDir(t)
    const file = logFile({ path: join(dir, 'a.log') })
    file.write('a\n')
    await file.close()
    assert.equal(file.write('b\n'), true)
    await file.close()
    assert.equal(readFileSync(join(dir, 'a.log'), 'utf8'), 'a\n')
    assert.equal(existsSync(join(dir, 'b.log')), false)
  })
})

describe('LogFile on a write that never returns (a named pipe nobody reads)', () => {
  test('the write in progress counts toward the limit, and close does not wait for it for ever', async (t) => {
    const dir = tempDir(t)
    const path = join(dir, 'stuck.log')
    execFileSync('mkfifo', [path])
    const reader = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK)
    t.after(() => closeSync(reader))
    const file = logFile({ path, limits: { maxQueued: 256 * 1024, closeMs: 100 } })
    const line = 'x'.repeat(1023) + '\n'
    // More than the pipe holds, in one write that blocks: then more than the limit allows.
    file.write(line.repeat(200))
    // The write starts once the file is open; it never ends (nobody reads the pipe).
    await waitFor(() => file.writing > 0, { what: 'the blocking write to start', timeout: 5000 })
    for (let i = 0; i < 100; i++) file.write(line)
    assert.equal(file.writing, 200 * 1024)
    assert.equal(file.queue.queued, 56 * 1024, 'queued + in flight stay within maxQueued')
    assert.equal(file.status().dropped_lines, 44)
    // Deadline far above closeMs: close must give up on the stuck write, not wait for it.
    await within(file.close(), { what: 'close to give up on the stuck write (it waited for it)', timeout: 10_000 })
  })
})
