// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { splitStartOperands } from '../../../client/cli.js'

/** @type {Array<[string[], string[], { targets: string[], args: string[] }]>} commander's operands, the argv, the split */
const cases = [
  [['app.js'], ['start', 'app.js'], { targets: ['app.js'], args: [] }],
  [['a.js', 'b.js', 'c.js'], ['start', 'a.js', 'b.js', 'c.js', '-i', '2'], { targets: ['a.js', 'b.js', 'c.js'], args: [] }],
  [['app.js', '--port=1', 'x'], ['start', 'app.js', '--', '--port=1', 'x'], { targets: ['app.js'], args: ['--port=1', 'x'] }],
  [['a.js', 'b.js', 'x', 'x'], ['start', '-f', 'a.js', 'b.js', '--merge-logs', '--', 'x', 'x'], { targets: ['a.js', 'b.js'], args: ['x', 'x'] }],
  [['app.js'], ['start', 'app.js', '--'], { targets: ['app.js'], args: [] }],
  [['-'], ['start', '-'], { targets: ['-'], args: [] }],
  [[], ['start'], { targets: [], args: [] }]
]
for (const [operands, argv, split] of cases) {
  test(`sup ${argv.join(' ')}`, () => {
    assert.deepEqual(splitStartOperands(operands, argv), split)
  })
}
