// @ts-check
// One module per command, none reaching into another: what two commands share lives beside
// them in client/ (config/, progress.js, shell-env.js), so a command loads only what it runs.
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'

const dir = new URL('../../../../client/commands/', import.meta.url)

for (const file of readdirSync(dir).filter((f) => f.endsWith('.js'))) {
  test(`client/commands/${file} imports no other command module`, () => {
    const source = readFileSync(new URL(file, dir), 'utf8')
    const specifiers = [...source.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1])
    assert.deepEqual(specifiers.filter((s) => s.startsWith('./')), [])
  })
}
