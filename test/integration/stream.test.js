// @ts-check
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { CLOSE_SLOW_SUBSCRIBER } from '../../ipc/protocol.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor, waitForEvent } from '../helpers/wait.js'

/** Lines of 16 KiB: about 300 of them fill what the daemon keeps for one subscriber. */
const LINE_SIZE = 16 * 1024
/** Lines the reading subscriber must get after the stalled one was let go. */
const LINES_AFTER = 50

test('a subscriber that stops reading is disconnected; the daemon and the others go on', async (t) => {
  const home = useSupHome(t)
  // No log files: a slow disk would hold the app back (log backpressure) and the stream with it.
  // 2 lines of 16 KiB every 10 ms (3.2 MiB/s): enough to fill a stalled subscriber's share in a
  // couple of seconds, little enough that a reader on a loaded machine keeps up (at 32 MiB/s the
  // reader fell behind too and was let go with the stalled one).
  const chatty = await home.sup(['start', join(APPS, 'chatty.js'), '--min-uptime', '100', '-o', '/dev/null', '-e', '/dev/null'], { env: { LINES: '2', SIZE: String(LINE_SIZE) } })
  assert.equal(chatty.code, 0, chatty.stderr)

  const slow = await home.connect()
  t.after(() => slow.close())
  let slowLines = 0
  slow.on('event', (topic) => { if (topic === 'log') slowLines++ })
  // Bounded by the waits before it plus 20 s: the daemon lets it go only once it has fallen behind.
  const slowClosed = waitForEvent(slow, 'close', { what: 'the slow subscriber to be disconnected', timeout: 70_000 })
  await slow.request('subscribe', { topics: ['log'] })
  // Stop reading the socket: the daemon's writes back up behind it.
  const socket = slow.ws.socket
  socket.pause()

  const fast = await home.connect()
  t.after(() => fast.close())
  let fastLines = 0
  let fastClosed = false
  fast.on('event', (topic) => { if (topic === 'log') fastLines++ })
  fast.on('close', () => { fastClosed = true })
  await fast.request('subscribe', { topics: ['log'] })

  // The daemon says when it lets the stalled subscriber go (we cannot see it while not reading).
  await waitFor(() => readFileSync(home.paths.daemonLog, 'utf8').includes('fell too far behind'), { what: 'the daemon to drop the stalled subscriber', timeout: 30_000, interval: 50 })
  const atDrop = fastLines
  assert.ok(atDrop > 0, 'the reader got lines while the other one stalled')
  // The reader goes on, and the daemon still answers.
  await waitFor(() => fastLines >= atDrop + LINES_AFTER, { what: `${LINES_AFTER} more lines for the reader`, timeout: 20_000, show: () => `${fastLines - atDrop} more` })
  const rows = await waitForRows(home, (rs) => rs.length === 1, { what: 'app.list answered' })
  assert.equal(rows[0].status, 'online')

  socket.resume()
  const [code, reason] = await slowClosed
  assert.equal(code, CLOSE_SLOW_SUBSCRIBER)
  assert.equal(reason, 'subscriber too slow')
  assert.ok(slowLines < fastLines, `the slow one got ${slowLines} lines, the reader ${fastLines}`)
  assert.equal(fastClosed, false, 'only the stalled subscriber was let go')
  const drops = readFileSync(home.paths.daemonLog, 'utf8').split('\n').filter((line) => line.includes('fell too far behind'))
  assert.equal(drops.length, 1, 'one subscriber dropped, the stalled one')
})
