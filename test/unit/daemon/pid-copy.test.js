// @ts-check
import assert from 'node:assert/strict'
import { lstatSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import pino from 'pino'
import { writePidCopy } from '../../../daemon/pid-copy.js'

const logger = pino({ level: 'silent' })

test('SUP_PID_FILE: a symlink planted at the path is replaced by the pid file, its target untouched; removed at the end', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sup-pid-copy-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const victim = join(dir, 'victim')
  writeFileSync(victim, 'precious\n')
  const file = join(dir, 'sup.pid')
  symlinkSync(victim, file)
  const remove = await writePidCopy(file, logger)
  assert.ok(lstatSync(file).isFile())
  assert.equal(readFileSync(file, 'utf8'), `${process.pid}\n`)
  assert.equal(readFileSync(victim, 'utf8'), 'precious\n')
  remove()
  assert.deepEqual(readdirSync(dir), ['victim'])
})
