// @ts-check
// A cold listing starts the daemon before the CLI has loaded (client/spawn-daemon.js); the
// ways that start can go: first call, two at once, a leftover socket file, a daemon that
// refuses to start.
import assert from 'node:assert/strict'
import { writeFileSync } from 'node:fs'
import { test } from 'node:test'
import { useSupHome } from '../helpers/sup.js'

test('a cold sup ls starts the daemon and answers; the next call finds the same daemon', async (t) => {
  const home = useSupHome(t)
  const first = await home.sup(['ls'])
  assert.equal(first.code, 0, first.stderr)
  assert.match(first.stdout, /no apps/)
  const ping = await home.sup(['ping', '--json'])
  const again = await home.sup(['ping', '--json'])
  assert.equal(JSON.parse(again.stdout).pid, JSON.parse(ping.stdout).pid)
})

test('two cold listings at once share one daemon', async (t) => {
  const home = useSupHome(t)
  const [a, b] = await Promise.all([home.sup(['jlist']), home.sup(['ls', '--json'])])
  assert.equal(a.code, 0, a.stderr)
  assert.equal(b.code, 0, b.stderr)
  assert.deepEqual(JSON.parse(a.stdout), [])
  assert.deepEqual(JSON.parse(b.stdout), [])
  const ping = JSON.parse((await home.sup(['ping', '--json'])).stdout)
  assert.equal(ping.apps, 0)
})

test('a leftover socket file with no daemon behind it does not stop a listing', async (t) => {
  const home = useSupHome(t)
  await home.sup(['ping'])
  assert.equal((await home.sup(['kill'])).code, 0)
  writeFileSync(home.paths.socket, '')
  const listed = await home.sup(['status', '--json'])
  assert.equal(listed.code, 0, listed.stderr)
  assert.deepEqual(JSON.parse(listed.stdout), [])
})

test('a daemon that refuses to start fails the listing with its own one-line reason', async (t) => {
  const home = useSupHome(t)
  const listed = await home.sup(['ls'], { env: { SUP_BALANCE: 'sideways' } })
  assert.equal(listed.code, 1)
  assert.match(listed.stderr, /^sup: invalid SUP_BALANCE "sideways" \(use "rr": .*\)\n$/)
  assert.equal(listed.stdout, '')
})
