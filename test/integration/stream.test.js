// @ts-check
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { join } from 'node:path'
import { test } from 'node:test'
import { CLOSE_SLOW_SUBSCRIBER } from '../../ipc/protocol.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

/** Lines of 16 KiB: this many (12 MiB) is well past what the daemon queues for one subscriber. */
const LINE_SIZE = 16 * 1024
const FAR_BEHIND_LINES = 800

test('a subscriber that stops reading is disconnected; the daemon and the others go on', async (t) => {
  const home = useSupHome(t)
  const chatty = await home.sup(['start', join(APPS, 'chatty.js'), '--min-uptime', '100'], { env: { LINES: '20', SIZE: String(LINE_SIZE) } })
  assert.equal(chatty.code, 0, chatty.stderr)

  const slow = await home.connect()
  t.after(() => slow.close())
  let slowLines = 0
  slow.on('event', (topic) => { if (topic === 'log') slowLines++ })
  const slowClosed = once(slow, 'close')
  await slow.request('subscribe', { topics: ['log'] })
  // Stop reading the socket: the daemon's writes back up behind it.
  const socket = slow.ws.socket
  socket.pause()

  const fast = await home.connect()
  t.after(() => fast.close())
  let fastLines = 0
  const reached = new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the reading subscriber got only ${fastLines} lines in 20 s`)), 20_000)
    fast.on('event', (topic) => {
      if (topic === 'log' && ++fastLines === FAR_BEHIND_LINES) {
        clearTimeout(timer)
        resolve(undefined)
      }
    })
  })
  await fast.request('subscribe', { topics: ['log'] })
  await reached

  // The daemon still answers, and the reader kept getting lines all along.
  const rows = await waitForRows(home, (rs) => rs.length === 1, { what: 'app.list answered' })
  assert.equal(rows[0].status, 'online')

  socket.resume()
  const [code, reason] = await withDeadline(slowClosed, 20_000, 'the slow subscriber to be disconnected')
  assert.equal(code, CLOSE_SLOW_SUBSCRIBER)
  assert.equal(reason, 'subscriber too slow')
  assert.ok(slowLines < fastLines, `the slow one got ${slowLines} lines, the reader ${fastLines}`)
})

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function withDeadline (promise, ms, what) {
  /** @type {NodeJS.Timeout | undefined} */
  let timer
  const deadline = new Promise((resolve, reject) => { timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms) })
  return /** @type {Promise<T>} */ (Promise.race([promise, deadline]).finally(() => clearTimeout(timer)))
}
