// @ts-check
// sup events: every decision of the supervisor with its reason, kept across daemon restarts,
// and the reason shown where the user looks (sup ls under the table).
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { APPS, SUP_BIN, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor, waitForEvent } from '../helpers/wait.js'

/** @typedef {import('../../ipc/events.js').SupEvent} SupEvent */

/** @param {string} stdout @returns {SupEvent[]} */
const parseLines = (stdout) => stdout.trim().split('\n').filter(Boolean).map((line) => JSON.parse(line))

test('a crash loop: each exit with its code and the restart it leads to, the crash loop with its retry, in events and under sup ls', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'crash-on-boot.js'), '--name', 'boom', '--min-uptime', '1000', '--max-restarts', '2', '--restart-delay', '50'])
  assert.equal(started.code, 0, started.stderr)
  await waitForRows(home, (rows) => rows[0]?.status === 'errored', { what: 'boom errored' })

  const listed = await home.sup(['events', 'boom', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  const events = parseLines(listed.stdout)
  const kinds = events.map((e) => e.kind)
  assert.deepEqual(kinds.filter((k) => k === 'restarting').length, 2, kinds.join(' '))
  const restarting = /** @type {SupEvent} */ (events.find((e) => e.kind === 'restarting'))
  assert.equal(restarting.app, 'boom')
  assert.equal(restarting.id, 0)
  assert.equal(restarting.data.code, 3)
  assert.equal(restarting.message, 'exited with code 3; restarting in 50 ms')
  const loop = /** @type {SupEvent} */ (events.find((e) => e.kind === 'crash-loop'))
  assert.ok(loop, kinds.join(' '))
  assert.equal(loop.level, 'error')
  assert.ok(Number(loop.data.retry_at) > Date.now(), 'a retry is scheduled')
  assert.ok(kinds.indexOf('spawned') < kinds.indexOf('restarting'))
  assert.deepEqual(events.map((e) => e.seq), [...events.map((e) => e.seq)].sort((a, b) => a - b))

  const text = await home.sup(['events', 'boom'])
  assert.match(text.stdout, /boom:0\s+crash-loop\s+exited with code 3; crash loop \(3 exits within min_uptime 1000 ms\), retrying in \d+ ms/)

  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0, ls.stderr)
  assert.match(ls.stdout, /crash loop: boom: last exit code 3 \(worker 0, \d+s ago\); next try in \d+s \(sup events boom\)/)
  // The reason among the app's own lines, marked (PM2's habit), and in its out file.
  const logs = await home.sup(['logs', 'boom', '--nostream', '--lines', '100'])
  assert.match(logs.stdout, /^boom\[0\] sup \| App \[boom:0\] exited with code 3; restarting in 50 ms$/m)
  assert.match(logs.stdout, /^boom\[0\] err \| crash-on-boot: failing on purpose$/m)
  const raw = await home.sup(['logs', 'boom', '--nostream', '--raw', '--lines', '100'])
  assert.doesNotMatch(raw.stdout + raw.stderr, /App \[boom:0\]/, '--raw: the app\'s own lines only')
  const file = readFileSync(join(home.paths.logs, 'boom-out.log'), 'utf8')
  assert.match(file, /^\[sup\] \d{4}-\d\d-\d\dT[\d:.]+Z App \[boom:0\] exited with code 3; crash loop/m)
})

test('the user\'s own actions are events too, and the history outlives the daemon', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web'], { env: { PORT: String(await freePort()) } })
  assert.equal(started.code, 0, started.stderr)
  await waitForRows(home, (rows) => rows[0]?.status === 'online', { what: 'web online' })
  assert.equal((await home.sup(['stop', 'web'])).code, 0)
  const before = parseLines((await home.sup(['events', 'web', '--json'])).stdout)
  assert.deepEqual(before.map((e) => e.kind), ['spawned', 'online', 'stop', 'exited'])
  assert.equal(before[2].message, 'stopped by the user (sup stop)')
  assert.match(before[3].message, /^exited with (code|signal) \S+ when asked to stop; stopped$/)

  assert.equal((await home.sup(['kill'])).code, 0)
  const after = await home.sup(['events', '--json'])
  assert.equal(after.code, 0, after.stderr)
  assert.deepEqual(parseLines(after.stdout).map((e) => e.seq), before.map((e) => e.seq), 'read back by the next daemon')
})

test('sup events --follow prints new decisions as they happen', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web'], { env: { PORT: String(await freePort()) } })).code, 0)
  await waitForRows(home, (rows) => rows[0]?.status === 'online', { what: 'web online' })
  const follower = spawn(process.execPath, [SUP_BIN, 'events', 'web', '--follow', '--json'], { env: home.env })
  t.after(() => { if (follower.exitCode === null) follower.kill('SIGKILL') })
  let out = ''
  follower.stdout.on('data', (chunk) => { out += chunk })
  // The past events first: once they are printed the subscription is in place.
  await waitForEvent(follower.stdout, 'data', { what: 'sup events to print the past events' })
  assert.equal((await home.sup(['restart', 'web'])).code, 0)
  await waitFor(() => out.includes('"kind":"restart"'), { what: 'a restart event', timeout: 15_000, show: () => out })
  const events = parseLines(out)
  assert.equal(new Set(events.map((e) => e.seq)).size, events.length, 'no event printed twice')
})
