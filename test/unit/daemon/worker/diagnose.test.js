// @ts-check
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createServer } from 'node:net'
import { diagnoseStart, findPortHolder } from '../../../../daemon/worker/diagnose.js'

const holder = async (/** @type {number} */ port) => port === 3300 ? { pid: 812, command: 'node api.js' } : null

test('the cause of a failed start, from the last stderr lines of node, python and others', async () => {
  const cases = [
    [['node:events:497', '      throw er; // Unhandled \'error\' event', 'Error: listen EADDRINUSE: address already in use 127.0.0.1:3300'], 'port 3300 is already in use by pid 812 (node api.js)'],
    [['Error: listen EADDRINUSE: address already in use :::4400'], 'port 4400 is already in use'],
    [['Traceback (most recent call last):', 'OSError: [Errno 98] Address already in use'], 'its address is already in use by another process'],
    [['Error: listen EACCES: permission denied 0.0.0.0:80'], 'port 80 is below 1024: it needs root or CAP_NET_BIND_SERVICE (or use a port above 1023)'],
    [["Error: Cannot find module 'dotenv'", 'Require stack:'], "module 'dotenv' is not installed (npm install / pip install in its folder)"],
    [["ModuleNotFoundError: No module named 'flask'"], "module 'flask' is not installed (npm install / pip install in its folder)"],
    [['/srv/app.js:3', 'SyntaxError: Unexpected token \'}\''], "SyntaxError: Unexpected token '}'"],
    [['something went wrong', 'exiting'], null],
    [[], null]
  ]
  for (const [lines, expected] of cases) assert.equal(await diagnoseStart(/** @type {string[]} */ (lines), { findHolder: holder }), expected, String(lines))
})

test('the process that listens on a port is found in /proc', { skip: process.platform !== 'linux' && '/proc is Linux\'s' }, async (t) => {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => server.close())
  const port = /** @type {import('node:net').AddressInfo} */ (server.address()).port
  const found = await findPortHolder(port)
  assert.equal(found?.pid, process.pid)
  assert.match(String(found?.command), /node/)
  assert.equal(await findPortHolder(1), null)
})
