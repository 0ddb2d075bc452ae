// @ts-check
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { EventJournal, parseEvent } from '../../../../daemon/events/journal.js'

const logger = pino({ level: 'silent' })

/** @param {import('node:test').TestContext} t */
function tempDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-journal-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** @param {Partial<import('../../../../ipc/events.js').SupEvent>} [over] */
const input = (over = {}) => ({ kind: 'exited', level: /** @type {const} */ ('warn'), app: 'api', id: 0, instance: 0, message: 'exited with code 3; restarting in 100 ms', data: { code: 3 }, ...over })

test('events are numbered, timed, kept oldest first and filtered by app, id and limit', () => {
  let now = 1000
  const journal = new EventJournal({ file: null, logger, now: () => now++ })
  journal.record(input())
  journal.record(input({ app: 'web', id: 1 }))
  journal.record(input({ id: 2, kind: 'restarting' }))
  assert.deepEqual(journal.list().map((e) => [e.seq, e.at, e.app, e.id]), [[1, 1000, 'api', 0], [2, 1001, 'web', 1], [3, 1002, 'api', 2]])
  assert.deepEqual(journal.list({ apps: new Set(['api']) }).map((e) => e.seq), [1, 3])
  assert.deepEqual(journal.list({ ids: new Set([1]) }).map((e) => e.seq), [2])
  assert.deepEqual(journal.list({ limit: 2 }).map((e) => e.seq), [2, 3])
})

test('the ring holds at most its capacity, dropping the oldest', () => {
  const journal = new EventJournal({ file: null, logger, capacity: 3 })
  for (let i = 0; i < 5; i++) journal.record(input({ id: i }))
  assert.deepEqual(journal.list().map((e) => e.id), [2, 3, 4])
})

test('subscribers get each event as it is recorded', () => {
  const journal = new EventJournal({ file: null, logger })
  /** @type {number[]} */
  const seen = []
  journal.on('event', (e) => seen.push(e.seq))
  journal.record(input())
  journal.record(input())
  assert.deepEqual(seen, [1, 2])
})

test('the history survives a restart: a new journal reads the file back and numbers on from it', async (t) => {
  const file = join(tempDir(t), 'events.jsonl')
  const first = new EventJournal({ file, logger })
  first.record(input({ id: 0 }))
  first.record(input({ id: 1 }))
  await first.close()
  assert.equal(statSync(file).mode & 0o777, 0o600)
  const second = new EventJournal({ file, logger })
  await second.load()
  assert.deepEqual(second.list().map((e) => [e.seq, e.id]), [[1, 0], [2, 1]])
  assert.equal(second.record(input()).seq, 3)
  await second.close()
})

test('the file is rotated past its size, one old file kept, and both are read back', async (t) => {
  const file = join(tempDir(t), 'events.jsonl')
  const journal = new EventJournal({ file, logger, maxBytes: 600 })
  for (let i = 0; i < 12; i++) {
    journal.record(input({ id: i }))
    await journal.writing
  }
  await journal.close()
  assert.ok(existsSync(`${file}.1`), 'rotated')
  assert.ok(statSync(file).size <= 600 + 400)
  const again = new EventJournal({ file, logger, maxBytes: 600 })
  await again.load()
  const ids = again.list().map((e) => e.id)
  assert.equal(ids.at(-1), 11)
  assert.deepEqual(ids, [...ids].sort((a, b) => Number(a) - Number(b)))
})

test('a symlink planted at the file is neither followed on write nor read', async (t) => {
  const dir = tempDir(t)
  const target = join(dir, 'victim')
  writeFileSync(target, 'precious\n')
  const file = join(dir, 'events.jsonl')
  symlinkSync(target, file)
  const journal = new EventJournal({ file, logger })
  await journal.load()
  assert.deepEqual(journal.list(), [])
  journal.record(input())
  await journal.writing
  await journal.close()
  assert.equal(readFileSync(target, 'utf8'), 'precious\n')
  assert.equal(journal.list().length, 1, 'kept in memory')
})

test('lines that are not what sup writes are dropped when read back', () => {
  const good = { seq: 1, at: 5, kind: 'exited', level: 'warn', app: 'a', id: 0, instance: 0, message: 'm', data: {} }
  assert.deepEqual(parseEvent(JSON.stringify(good)), good)
  for (const bad of ['', 'nope', '[]', 'null',
    JSON.stringify({ ...good, seq: 0 }),
    JSON.stringify({ ...good, level: 'fatal' }),
    JSON.stringify({ ...good, app: 5 }),
    JSON.stringify({ ...good, id: 'x' }),
    JSON.stringify({ ...good, data: [] }),
    JSON.stringify({ ...good, message: 'x'.repeat(5000) })]) {
    assert.equal(parseEvent(bad), null, bad.slice(0, 80))
  }
})
