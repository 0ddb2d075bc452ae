// @ts-check
// Issue 19 item 8: what an app writes or a config holds reaches the terminal with its control
// characters shown (\x1b), never obeyed; `sup logs --raw` alone gives the bytes.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome } from '../helpers/sup.js'

// C0 but tab and newline, DEL, C1: what a terminal would act on.
// eslint-disable-next-line no-control-regex
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/

test('logs, describe, describe --json and error messages escape control characters; logs --raw does not', async (t) => {
  const home = useSupHome(t)
  const config = join(home.home, 'esc.config.json')
  writeFileSync(config, JSON.stringify({ apps: [{ name: 'esc', script: join(APPS, 'prints-escapes.js'), env: { 'K\u001b[2J': 'v\u009b31m', TITLE: '\u001b]0;x\u0007' } }] }))
  const start = await home.sup(['start', config])
  assert.equal(start.code, 0, start.stderr)

  let logs = { code: 1, stdout: '', stderr: '' }
  const deadline = Date.now() + 15_000
  while (!logs.stdout.includes('escapes written') && Date.now() < deadline) logs = await home.sup(['logs', 'esc', '--nostream', '--lines', '10'])
  assert.equal(logs.code, 0, logs.stderr)
  assert.ok(logs.stdout.includes('esc[0] out | \\x1b]0;pwned\\x07\\x1b[2J\\x1b]52;c;ZXZpbA==\\x07 \\x9b31m red\n'), logs.stdout)
  assert.doesNotMatch(logs.stdout, CONTROLS)

  const raw = await home.sup(['logs', 'esc', '--nostream', '--lines', '10', '--raw'])
  assert.ok(raw.stdout.includes('\u001b]0;pwned\u0007\u001b[2J\u001b]52;c;ZXZpbA==\u0007 \u009b31m red\n'), 'the bytes as the app wrote them')

  const describe = await home.sup(['describe', 'esc'])
  assert.equal(describe.code, 0, describe.stderr)
  assert.doesNotMatch(describe.stdout, CONTROLS)
  assert.match(describe.stdout, /K\\x1b\[2J/)

  const json = await home.sup(['describe', 'esc', '--json'])
  assert.doesNotMatch(json.stdout, CONTROLS)
  assert.ok(Object.hasOwn(JSON.parse(json.stdout).config.env, 'K\u001b[2J'), 'the same data for a program')

  const error = await home.sup(['stop', 'x\u009b2J\u001b]0;t\u0007'])
  assert.equal(error.code, 1)
  assert.equal(error.stderr, 'sup: app "x\\x9b2J\\x1b]0;t\\x07" not found (sup ls lists apps)\n')
})
