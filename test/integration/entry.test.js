// @ts-check
// The `sup` command is bin/sup.cjs (package.json "bin"); `node bin/sup.js` keeps working.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { ROOT, SUP_BIN, useSupHome } from '../helpers/sup.js'

const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))

/**
 * @param {string} bin
 * @param {string[]} args
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
const run = (bin, args, env) => new Promise((resolve) => {
  execFile(process.execPath, [bin, ...args], { env, timeout: 30_000 }, (err, stdout, stderr) => {
    resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
  })
})

test('package.json names bin/sup.cjs; it and bin/sup.js answer alike, listing included', async (t) => {
  assert.equal(pkg.bin.sup, 'bin/sup.cjs')
  assert.equal(join(ROOT, pkg.bin.sup), SUP_BIN)
  const home = useSupHome(t)
  for (const bin of ['sup.cjs', 'sup.js']) {
    const version = await run(join(ROOT, 'bin', bin), ['--version'], home.env)
    assert.equal(version.stdout.trim(), pkg.version, bin)
    const ls = await run(join(ROOT, 'bin', bin), ['ls', '--json'], home.env)
    assert.equal(ls.code, 0, ls.stderr)
    assert.deepEqual(JSON.parse(ls.stdout), [], bin)
    assert.equal(ls.stderr, '', `${bin}: nothing on stderr (no warning from require() of ES modules)`)
  }
})
