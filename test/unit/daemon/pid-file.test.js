// @ts-check
import assert from 'node:assert/strict'
import { EventEmitter } from 'node:events'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, describe, test } from 'node:test'
import { pidFilePath, trackPidFile } from '../../../daemon/pid-file.js'
import { settle } from '../../helpers/wait.js'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'sup-pid-file-'))
after(() => fs.rmSync(dir, { recursive: true, force: true }))

describe('pidFilePath: PM2 names one file per worker id', () => {
  const cases = [
    ['/run/app.pid', 0, '/run/app-0.pid'],
    ['/run/app.pid', 12, '/run/app-12.pid'],
    ['/run/app-3.pid', 4, '/run/app-4.pid'],
    ['/run/app', 2, '/run/app-2.pid']
  ]
  for (const [file, id, expected] of cases) {
    test(`${file} for id ${id} -> ${expected}`, () => assert.equal(pidFilePath(/** @type {string} */ (file), /** @type {number} */ (id)), expected))
  }
})

describe('trackPidFile', () => {
  /** the file, once the tracker's writes (asynchronous, queued) have run */
  const read = async (/** @type {string} */ file) => {
    await settle()
    return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : null
  }
  const gone = async (/** @type {string} */ file) => {
    await settle()
    return !fs.existsSync(file)
  }
  const logger = /** @type {any} */ ({ warn () {} })

  test('written when the process starts, rewritten on a restart, removed when it exits and on delete', async () => {
    const worker = Object.assign(new EventEmitter(), { id: 7 })
    const file = path.join(dir, 'api-7.pid')
    trackPidFile(worker, path.join(dir, 'api.pid'), logger)
    worker.emit('state', { pid: null })
    assert.equal(await read(file), null)
    worker.emit('state', { pid: 1234 })
    assert.equal(await read(file), '1234\n')
    worker.emit('state', { pid: null })
    assert.ok(await gone(file))
    worker.emit('state', { pid: 5678 })
    assert.equal(await read(file), '5678\n')
    worker.emit('remove')
    assert.ok(await gone(file))
  })

  test('a reload: the old worker gives its id (and file) to its successor and writes its pid under its spare id', async () => {
    const old = Object.assign(new EventEmitter(), { id: 0 })
    const successor = Object.assign(new EventEmitter(), { id: 0 })
    trackPidFile(old, path.join(dir, 'web.pid'), logger)
    trackPidFile(successor, path.join(dir, 'web.pid'), logger)
    old.emit('state', { pid: 111 })
    assert.equal(await read(path.join(dir, 'web-0.pid')), '111\n')
    old.id = 5
    old.emit('renumber', 5)
    successor.emit('state', { pid: 222 })
    assert.equal(await read(path.join(dir, 'web-5.pid')), '111\n')
    old.emit('state', { pid: null })
    old.emit('remove')
    assert.ok(await gone(path.join(dir, 'web-5.pid')))
    assert.equal(await read(path.join(dir, 'web-0.pid')), '222\n', 'the old worker leaves the successor\'s file alone')
  })

  test('a symlink planted at the temp name (the old predictable one) or at the file is never written through', async () => {
    const worker = Object.assign(new EventEmitter(), { id: 3 })
    const file = path.join(dir, 'planted-3.pid')
    const victim = path.join(dir, 'victim')
    fs.writeFileSync(victim, 'root:x:0:0\n')
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`)
    fs.symlinkSync(victim, file)
    trackPidFile(worker, path.join(dir, 'planted.pid'), logger)
    worker.emit('state', { pid: 4321 })
    for (let i = 0; i < 50 && fs.lstatSync(file).isSymbolicLink(); i++) await new Promise((resolve) => setTimeout(resolve, 10))
    assert.equal(fs.readFileSync(file, 'utf8'), '4321\n')
    assert.ok(fs.lstatSync(file).isFile(), 'the link at the file was replaced, not followed')
    assert.equal(fs.readFileSync(victim, 'utf8'), 'root:x:0:0\n', 'the file the links name is untouched')
  })

  test('a file that cannot be written is logged, not thrown', async () => {
    const worker = Object.assign(new EventEmitter(), { id: 1 })
    /** @type {unknown[]} */
    const warnings = []
    trackPidFile(worker, path.join(dir, 'no-such-dir', 'x.pid'), /** @type {any} */ ({ warn: (/** @type {unknown} */ info) => warnings.push(info) }))
    worker.emit('state', { pid: 42 })
    await settle()
    assert.equal(warnings.length, 1)
  })
})
