// @ts-check
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import pino from 'pino'
import { Settings, validSettings } from '../../../daemon/settings.js'

const logger = pino({ level: 'silent' })

/** @param {import('node:test').TestContext} t */
function tempFile (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-settings-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return join(dir, 'settings.json')
}

describe('Settings', () => {
  test('set, of, unset; the file follows and a new Settings reads it back', async (t) => {
    const file = tempFile(t)
    const settings = new Settings({ file, logger })
    assert.deepEqual(settings.of('echo'), {})
    await settings.set([{ app: 'echo', key: 'a', value: '1' }, { app: 'echo', key: 'b', value: '2' }, { app: 'api', key: 'c', value: '3' }])
    assert.deepEqual({ ...settings.of('echo') }, { a: '1', b: '2' })
    assert.deepEqual(JSON.parse(JSON.stringify(new Settings({ file, logger }).data)), { echo: { a: '1', b: '2' }, api: { c: '3' } })

    assert.deepEqual(await settings.unset('echo', 'a'), ['a'])
    assert.deepEqual(await settings.unset('echo', 'nope'), [])
    assert.deepEqual(await settings.unset('api', null), ['c'])
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { echo: { b: '2' } }, 'an app with no key left is gone')
  })

  test('a write that fails (a full disk) changes nothing: the value is applied only once it is on disk', async (t) => {
    const file = tempFile(t)
    const settings = new Settings({ file, logger })
    await settings.set([{ app: 'api', key: 'LEVEL', value: 'info' }])
    // The folder gone stands in for ENOSPC: the temp file cannot be written.
    rmSync(join(file, '..'), { recursive: true, force: true })
    await assert.rejects(settings.set([{ app: 'api', key: 'LEVEL', value: 'debug' }, { app: 'web', key: 'X', value: '1' }]), { code: 'SUP_ERR_DUMP_WRITE_FAILED' })
    assert.deepEqual({ ...settings.of('api') }, { LEVEL: 'info' }, 'the old value stays, as the next start would read it')
    assert.deepEqual({ ...settings.of('web') }, {})
    await assert.rejects(settings.unset('api', null), { code: 'SUP_ERR_DUMP_WRITE_FAILED' })
    assert.deepEqual({ ...settings.of('api') }, { LEVEL: 'info' })
  })

  test('changes made at once apply in order, each on the one before', async (t) => {
    const file = tempFile(t)
    const settings = new Settings({ file, logger })
    await Promise.all([
      settings.set([{ app: 'api', key: 'A', value: '1' }]),
      settings.set([{ app: 'api', key: 'B', value: '2' }]),
      settings.unset('api', 'A')
    ])
    assert.deepEqual({ ...settings.of('api') }, { B: '2' })
    assert.deepEqual(JSON.parse(readFileSync(file, 'utf8')), { api: { B: '2' } })
  })

  test('a settings.json that is a symlink is not read through', async (t) => {
    const file = tempFile(t)
    const elsewhere = `${file}.elsewhere`
    writeFileSync(elsewhere, JSON.stringify({ api: { PLANTED: '1' } }))
    symlinkSync(elsewhere, file)
    assert.deepEqual({ ...new Settings({ file, logger }).of('api') }, {})
  })

  test('apps named __proto__ or constructor are apps like any other', async (t) => {
    const file = tempFile(t)
    const settings = new Settings({ file, logger })
    assert.deepEqual({ ...settings.of('constructor') }, {})
    await settings.set([{ app: '__proto__', key: 'polluted', value: 'yes' }, { app: 'constructor', key: '__proto__', value: 'x' }])
    assert.equal(/** @type {any} */ ({}).polluted, undefined)
    assert.deepEqual({ ...settings.of('__proto__') }, { polluted: 'yes' })
    assert.deepEqual(Object.keys(new Settings({ file, logger }).data), ['__proto__', 'constructor'])
  })

  test('a file that is not valid is moved aside; the daemon starts without settings', (t) => {
    const file = tempFile(t)
    writeFileSync(file, '{"echo": {"a": 1}}')
    const settings = new Settings({ file, logger })
    assert.deepEqual(Object.keys(settings.data), [])
    assert.equal(existsSync(`${file}.corrupt`), true)
  })

  test('validSettings: an object of apps, each an object of strings', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(validSettings({ a: { X: 'y' } }))), { a: { X: 'y' } })
    for (const bad of [null, [], 'x', { a: 'y' }, { a: { X: 1 } }, { a: [] }]) assert.throws(() => validSettings(bad), TypeError)
  })
})
