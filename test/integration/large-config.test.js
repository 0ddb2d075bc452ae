// @ts-check
// Issue 19 item 10: a config of more apps than one request takes is sent in parts, and a config
// too large or too deep is a coded one-line error.
import assert from 'node:assert/strict'
import { truncateSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome } from '../helpers/sup.js'

test('a config of 300 apps registers all of them (two requests), dependencies across the parts', async (t) => {
  const home = useSupHome(t)
  const script = join(APPS, 'http-server.js')
  // autostart false: 300 apps registered, no process started (the machine is shared).
  const apps = Array.from({ length: 300 }, (_, i) => ({ name: `app${i}`, script, autostart: false, ...(i === 0 ? { depends_on: ['app299'] } : {}) }))
  const config = join(home.home, 'many.config.json')
  writeFileSync(config, JSON.stringify({ apps }))
  const start = await home.sup(['start', config, '--json'], { timeout: 120_000 })
  assert.equal(start.code, 0, start.stderr)
  const rows = await home.ls()
  assert.equal(new Set(rows.map((r) => r.name)).size, 300)
})

test('a config file over the size cap, or nested 100k deep, is one coded line', async (t) => {
  const home = useSupHome(t)
  const big = join(home.home, 'big.json')
  writeFileSync(big, '')
  truncateSync(big, 17 * 1024 * 1024)
  const tooBig = await home.sup(['start', big])
  assert.equal(tooBig.code, 1)
  assert.equal(tooBig.stderr, `sup: config file ${big} is ${17 * 1024 * 1024} bytes, more than the 16777216 sup reads (split its apps over several files)\n`)

  const deep = join(home.home, 'deep.json')
  writeFileSync(deep, `{ "apps": [{ "name": "a", "script": ${JSON.stringify(join(APPS, 'http-server.js'))}, "env": { "X": ${'['.repeat(100_000)}${']'.repeat(100_000)} } }] }`)
  const tooDeep = await home.sup(['start', deep])
  assert.equal(tooDeep.code, 1)
  assert.equal(tooDeep.stderr, `sup: config file ${deep} could not be read: apps[0].env.X… is nested more than 64 levels deep\n`)
})
