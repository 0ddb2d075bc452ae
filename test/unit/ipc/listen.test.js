// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseListen, parseListenEntry } from '../../../ipc/listen.js'

/** @type {Array<[unknown, unknown]>} */
const entries = [
  [3000, { kind: 'tcp', host: null, port: 3000, name: '3000' }],
  ['3000', { kind: 'tcp', host: null, port: 3000, name: '3000' }],
  [':8080', { kind: 'tcp', host: null, port: 8080, name: '8080' }],
  ['127.0.0.1:8080', { kind: 'tcp', host: '127.0.0.1', port: 8080, name: '127.0.0.1:8080' }],
  ['localhost:8080', { kind: 'tcp', host: 'localhost', port: 8080, name: 'localhost:8080' }],
  ['[::1]:8080', { kind: 'tcp', host: '::1', port: 8080, name: '[::1]:8080' }],
  ['unix:/run/app.sock', { kind: 'unix', path: '/run/app.sock', name: 'unix:/run/app.sock' }],
  [' 3000 ', { kind: 'tcp', host: null, port: 3000, name: '3000' }],
  [0, { error: 'the port must be a number from 1 to 65535' }],
  [65536, { error: 'the port must be a number from 1 to 65535' }],
  [3000.5, { error: 'the port must be a number from 1 to 65535' }],
  ['::1:8080', { error: 'write an IPv6 address in brackets, as in "[::1]:8080"' }],
  ['web', { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }],
  ['host:http', { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }],
  ['unix:', { error: 'a unix socket needs a path, as in "unix:/run/app.sock"' }],
  ['', { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }],
  [{ port: 3000 }, { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"' }],
  [`unix:/${'x'.repeat(110)}`, { error: `the socket path /${'x'.repeat(110)} is longer than the 103 bytes a unix socket address holds` }]
]
for (const [value, expected] of entries) {
  test(`listen entry ${JSON.stringify(value)}`, () => assert.deepEqual(parseListenEntry(value), expected))
}

test('relative unix paths resolve with the given resolver (the app cwd)', () => {
  assert.deepEqual(parseListenEntry('unix:app.sock', (p) => `/srv/web/${p}`), { kind: 'unix', path: '/srv/web/app.sock', name: 'unix:/srv/web/app.sock' })
})

/** @type {Array<[unknown, unknown]>} */
const lists = [
  [undefined, []],
  [null, []],
  ['', []],
  [3000, ['3000']],
  ['3000,127.0.0.1:8080', ['3000', '127.0.0.1:8080']],
  [[3000, 'unix:/run/a.sock'], ['3000', 'unix:/run/a.sock']],
  [[3000, '3000'], { error: '3000 is listed twice', entry: '3000' }],
  [[3000, '127.0.0.1:3000'], { error: '127.0.0.1:3000 is listed twice', entry: '127.0.0.1:3000' }],
  [['127.0.0.1:3000', '127.0.0.2:3000'], ['127.0.0.1:3000', '127.0.0.2:3000']],
  [[3000, 'nope'], { error: 'use a port (3000), "host:port" or "unix:/path/to.sock"', entry: 'nope' }],
  [Array.from({ length: 65 }, (_, i) => 1000 + i), { error: 'at most 64 sockets per app', entry: Array.from({ length: 65 }, (_, i) => 1000 + i) }]
]
for (const [value, expected] of lists) {
  test(`listen setting ${JSON.stringify(value)?.slice(0, 60)}`, () => {
    const result = parseListen(value)
    assert.deepEqual(Array.isArray(result) ? result.map((s) => s.name) : result, expected)
  })
}
