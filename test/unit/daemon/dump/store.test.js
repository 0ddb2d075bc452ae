// @ts-check
import assert from 'node:assert/strict'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { SupError } from '../../../../ipc/errors.js'
import { buildDump } from '../../../../daemon/dump/format.js'
import { loadDump, writeFileAtomic } from '../../../../daemon/dump/store.js'

/** @param {import('node:test').TestContext} t */
function tempDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-dump-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** @param {string[]} names */
const dumpText = (names) => JSON.stringify(buildDump({
  apps: names.map((name) => ({ config: /** @type {any} */ ({ ...APP_DEFAULTS, name, script: '/a.js', cwd: '/' }), workers: [{ instance: 0, run: true, pid: null, start_time: null }] })),
  daemon: { pid: 1, start_time: '1', boot_id: null, state: 'stopped' },
  version: 'test',
  reason: 'test',
  now: 0
}))

describe('writeFileAtomic', () => {
  test('writes 0600, keeps the previous content as .bak, leaves no temp file', async (t) => {
    const dir = tempDir(t)
    const file = join(dir, 'dump.json')
    await writeFileAtomic(file, 'one')
    assert.equal(readFileSync(file, 'utf8'), 'one')
    assert.equal(statSync(file).mode & 0o777, 0o600)
    assert.deepEqual(readdirSync(dir), ['dump.json'], 'no .bak before there was a previous version')
    await writeFileAtomic(file, 'two')
    await writeFileAtomic(file, 'three')
    assert.equal(readFileSync(file, 'utf8'), 'three')
    assert.equal(readFileSync(`${file}.bak`, 'utf8'), 'two')
    assert.equal(statSync(`${file}.bak`).mode & 0o777, 0o600)
    assert.deepEqual(readdirSync(dir).sort(), ['dump.json', 'dump.json.bak'])
  })

  test('keeps 0600 under a permissive umask', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    const old = process.umask(0)
    try {
      await writeFileAtomic(file, 'x')
    } finally {
      process.umask(old)
    }
    assert.equal(statSync(file).mode & 0o777, 0o600)
  })

  test('a write that cannot happen is SUP_ERR_DUMP_WRITE_FAILED and leaves the old file whole', async (t) => {
    const dir = tempDir(t)
    const notADir = join(dir, 'plain-file')
    writeFileSync(notADir, 'x')
    await assert.rejects(writeFileAtomic(join(notADir, 'dump.json'), 'y'), (err) => {
      assert.ok(err instanceof SupError)
      assert.equal(err.code, 'SUP_ERR_DUMP_WRITE_FAILED')
      assert.match(err.message, /ENOTDIR/)
      return true
    })
  })
})

describe('loadDump', () => {
  test('no dump.json: nothing saved, no warning (even if a .bak exists)', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    writeFileSync(`${file}.bak`, dumpText(['old']))
    assert.deepEqual(await loadDump(file), { dump: null, source: null, warnings: [] })
  })

  test('a good dump.json is used', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    writeFileSync(file, dumpText(['a', 'b']))
    const loaded = await loadDump(file)
    assert.equal(loaded.source, file)
    assert.deepEqual(loaded.dump?.apps.map((a) => a.config.name), ['a', 'b'])
    assert.deepEqual(loaded.warnings, [])
  })

  for (const [name, text] of [['truncated', dumpText(['a']).slice(0, 40)], ['empty', ''], ['garbage', '\u0000\u0000\u0000']]) {
    test(`a ${name} dump.json falls back to the .bak, says so, and is moved aside`, async (t) => {
      const file = join(tempDir(t), 'dump.json')
      writeFileSync(file, text)
      writeFileSync(`${file}.bak`, dumpText(['from-bak']))
      const loaded = await loadDump(file)
      assert.equal(loaded.source, `${file}.bak`)
      assert.deepEqual(loaded.dump?.apps.map((a) => a.config.name), ['from-bak'])
      assert.match(loaded.warnings[0], /dump\.json cannot be read: .*moved it to .*dump\.json\.corrupt/)
      assert.match(loaded.warnings[1], /using .*dump\.json\.bak/)
      assert.equal(readFileSync(`${file}.corrupt`, 'utf8'), text)
      assert.equal(readFileSync(`${file}.bak`, 'utf8'), dumpText(['from-bak']), 'the good .bak stays for the next write to keep')
    })
  }

  test('missing after it was moved aside as corrupt: the .bak is still what was saved (PM2 reads its .bak)', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    writeFileSync(file, '[{')
    writeFileSync(`${file}.bak`, dumpText(['from-bak']))
    assert.equal((await loadDump(file)).source, `${file}.bak`, 'the first read moves the corrupt file aside')
    const again = await loadDump(file)
    assert.equal(again.source, `${file}.bak`)
    assert.deepEqual(again.dump?.apps.map((a) => a.config.name), ['from-bak'])
    assert.match(again.warnings[0], /dump\.json is missing since it was found corrupt/)
  })

  test('both unreadable: no apps, two warnings, no throw', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    writeFileSync(file, '{')
    writeFileSync(`${file}.bak`, '{"sup_dump": 1')
    const loaded = await loadDump(file)
    assert.equal(loaded.dump, null)
    assert.equal(loaded.warnings.length, 2)
    assert.match(loaded.warnings[1], /dump\.json\.bak cannot be read: .*no saved apps/)
  })

  test('corrupt and no .bak: says there is none', async (t) => {
    const file = join(tempDir(t), 'dump.json')
    writeFileSync(file, 'nope')
    const loaded = await loadDump(file)
    assert.equal(loaded.dump, null)
    assert.match(loaded.warnings[1], /there is no .*dump\.json\.bak to fall back on/)
  })
})
