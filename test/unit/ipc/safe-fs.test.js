// @ts-check
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { chmodSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { readOwnFile, writeFileAtomic } from '../../../ipc/own-files.js'
import { APPEND_FLAGS, ensureHome, openOwnFileSync, readOwnFileSync, SOCKET_PATH_MAX } from '../../../ipc/safe-fs.js'
import { resolvePaths } from '../../../ipc/paths.js'

/**
 * A folder with `target` holding "precious" and `link`, a symlink to it.
 * @param {import('node:test').TestContext} t
 */
function withLink (t) {
  const dir = tempDir(t)
  const target = join(dir, 'target')
  writeFileSync(target, 'precious\n')
  const link = join(dir, 'link')
  symlinkSync(target, link)
  return { dir, target, link }
}

/** @param {import('node:test').TestContext} t */
function tempDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'sup-safe-fs-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

describe('ensureHome', () => {
  test('makes a missing home 0700 (and its parents), then accepts it; a missing home without create is false', (t) => {
    const dir = tempDir(t)
    const paths = resolvePaths({ SUP_HOME: join(dir, 'a', 'b', 'home') })
    assert.equal(ensureHome(paths), false)
    assert.equal(ensureHome(paths, { create: true }), true)
    assert.equal(lstatSync(paths.home).mode & 0o777, 0o700)
    assert.equal(ensureHome(paths), true)
  })

  /** @type {Array<[string, (home: string) => void, string]>} */
  const refused = [
    ['group-writable', (home) => { mkdirSync(home); chmodSync(home, 0o770) }, 'SUP_ERR_HOME_UNSAFE_MODE'],
    ['world-writable and sticky', (home) => { mkdirSync(home); chmodSync(home, 0o1777) }, 'SUP_ERR_HOME_UNSAFE_MODE'],
    ['a symlink to a good directory', (home) => { mkdirSync(`${home}-real`, { mode: 0o700 }); symlinkSync(`${home}-real`, home) }, 'SUP_ERR_HOME_NOT_DIRECTORY'],
    ['a file', (home) => writeFileSync(home, ''), 'SUP_ERR_HOME_NOT_DIRECTORY']
  ]
  for (const [what, make, code] of refused) {
    test(`refuses a home that is ${what}: ${code}, with or without create`, (t) => {
      const paths = resolvePaths({ SUP_HOME: join(tempDir(t), 'home') })
      make(paths.home)
      assert.throws(() => ensureHome(paths), { code })
      assert.throws(() => ensureHome(paths, { create: true }), { code })
    })
  }

  test('a home whose socket path is too long for a unix socket: SUP_ERR_HOME_PATH_TOO_LONG, nothing made', (t) => {
    const dir = tempDir(t)
    const fits = join(dir, 'h'.repeat(SOCKET_PATH_MAX - dir.length - '/sup.sock'.length - 1))
    assert.equal(Buffer.byteLength(resolvePaths({ SUP_HOME: fits }).socket), SOCKET_PATH_MAX)
    assert.equal(ensureHome(resolvePaths({ SUP_HOME: fits }), { create: true }), true)
    const long = `${fits}x`
    assert.throws(() => ensureHome(resolvePaths({ SUP_HOME: long }), { create: true }), { code: 'SUP_ERR_HOME_PATH_TOO_LONG' })
    assert.throws(() => lstatSync(long), { code: 'ENOENT' })
  })
})

describe('sup\'s own files', () => {
  test('a symlink is refused (SUP_ERR_HOME_FILE_UNSAFE), its target neither read nor written', async (t) => {
    const { target, link } = withLink(t)
    assert.throws(() => openOwnFileSync(link, APPEND_FLAGS), { code: 'SUP_ERR_HOME_FILE_UNSAFE', message: /a symbolic link/ })
    assert.throws(() => readOwnFileSync(link, 100), { code: 'SUP_ERR_HOME_FILE_UNSAFE' })
    await assert.rejects(readOwnFile(link, 100), { code: 'SUP_ERR_HOME_FILE_UNSAFE' })
    assert.equal(readFileSync(target, 'utf8'), 'precious\n')
  })

  test('a named pipe is refused at once, not waited on', async (t) => {
    const dir = tempDir(t)
    const fifo = join(dir, 'fifo')
    execFileSync('mkfifo', [fifo])
    assert.throws(() => readOwnFileSync(fifo, 100), { code: 'SUP_ERR_HOME_FILE_UNSAFE', message: /a named pipe/ })
    await assert.rejects(readOwnFile(fifo, 100), { code: 'SUP_ERR_HOME_FILE_UNSAFE' })
  })

  test('read whole up to the cap; a bigger file is refused; a missing one keeps ENOENT', async (t) => {
    const dir = tempDir(t)
    const file = join(dir, 'f')
    writeFileSync(file, '12345')
    assert.equal(readOwnFileSync(file, 5), '12345')
    assert.equal(await readOwnFile(file, 5), '12345')
    assert.throws(() => readOwnFileSync(file, 4), { code: 'SUP_ERR_HOME_FILE_UNSAFE', message: /5 bytes, more than the 4/ })
    await assert.rejects(readOwnFile(file, 4), { code: 'SUP_ERR_HOME_FILE_UNSAFE' })
    assert.throws(() => readOwnFileSync(join(dir, 'none'), 4), { code: 'ENOENT' })
    await assert.rejects(readOwnFile(join(dir, 'none'), 4), { code: 'ENOENT' })
  })
})

describe('writeFileAtomic', () => {
  test('replaces the file (a symlink at its name included, never written through) and leaves no temp file', async (t) => {
    const { dir, target, link } = withLink(t)
    await writeFileAtomic(link, 'new\n', { mode: 0o644 })
    assert.equal(readFileSync(link, 'utf8'), 'new\n')
    assert.ok(lstatSync(link).isFile())
    assert.equal(lstatSync(link).mode & 0o777, 0o644)
    assert.equal(readFileSync(target, 'utf8'), 'precious\n')
    assert.deepEqual(readdirSync(dir).sort(), ['link', 'target'])
  })

  test('temp names are random: two writes never share one', async (t) => {
    const dir = tempDir(t)
    const file = join(dir, 'file')
    const seen = new Set()
    await Promise.all(Array.from({ length: 20 }, (_, i) => writeFileAtomic(file, String(i), {
      durable: false,
      beforeRename: async () => { for (const name of readdirSync(dir)) if (name.endsWith('.tmp')) seen.add(name) }
    })))
    assert.equal(seen.size, 20)
  })

  test('a failed write leaves the old file as it was', async (t) => {
    const dir = tempDir(t)
    const file = join(dir, 'file')
    writeFileSync(file, 'old')
    await assert.rejects(writeFileAtomic(file, 'new', { beforeRename: async () => { throw new Error('ENOSPC') } }), /ENOSPC/)
    assert.equal(readFileSync(file, 'utf8'), 'old')
    assert.deepEqual(readdirSync(dir), ['file'])
  })
})
