// @ts-check
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { closeSync, constants, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { gunzipSync } from 'node:zlib'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

/**
 * The lines of `name` and of its rotations (gzipped ones unpacked), by file.
 * @param {string} dir
 * @param {string} stem e.g. "app-out" for app-out.log
 */
function readRotated (dir, stem) {
  /** @type {Record<string, string[]>} */
  const files = {}
  for (const name of readdirSync(dir)) {
    if (name !== `${stem}.log` && !new RegExp(`^${stem}__[\\d_-]+\\.log(\\.gz)?$`).test(name)) continue
    const raw = readFileSync(join(dir, name))
    const text = (name.endsWith('.gz') ? gunzipSync(raw) : raw).toString()
    assert.ok(text === '' || text.endsWith('\n'), `${name} ends with a whole line`)
    files[name] = text.split('\n').slice(0, -1)
  }
  return files
}

test('200,000 lines from 4 workers through many rotations: each line in exactly one file, none torn', async (t) => {
  const home = useSupHome(t)
  const workers = 4
  const perWorker = 50_000
  const started = Date.now()
  const start = await home.sup(['start', join(APPS, 'log-flood.js'), '-i', String(workers), '--merge-logs',
    '--log-max-size', '200K', '--log-retain', '1000', '--log-compress',
    '--stop-exit-codes', '0', '--min-uptime', '100', '--', String(perWorker)])
  // Workers that finish writing before min_uptime are already "stopped" when start answers.
  assert.ok(start.code === 0 || /did not come online/.test(start.stderr), start.stderr)
  await waitForRows(home, (rows) => rows.length === workers && rows.every((r) => r.status === 'stopped' && r.last_exit?.code === 0),
    { timeout: 60_000, what: 'every worker done writing' })
  const info = JSON.parse((await home.sup(['describe', 'log-flood', '--json'])).stdout)
  // Stopping the daemon closes the files: the last lines reach the disk, compression finishes.
  assert.equal((await home.sup(['kill'])).code, 0)
  const took = Date.now() - started

  const files = readRotated(home.paths.logs, 'log-flood-out')
  const counts = new Map()
  for (const lines of Object.values(files)) {
    for (const line of lines) {
      assert.match(line, /^[0-3]:\d+:x{24}$/, 'a whole line')
      counts.set(line, (counts.get(line) ?? 0) + 1)
    }
  }
  const missing = []
  for (let w = 0; w < workers; w++) {
    for (let n = 0; n < perWorker; n++) if (!counts.has(`${w}:${n}:${'x'.repeat(24)}`)) missing.push(`${w}:${n}`)
  }
  assert.deepEqual(missing.slice(0, 10), [], `${missing.length} line(s) missing`)
  assert.equal(counts.size, workers * perWorker)
  assert.deepEqual([...counts.values()].filter((c) => c !== 1), [], 'no line is written twice')
  const rotated = Object.keys(files).filter((name) => name.endsWith('.gz'))
  assert.ok(rotated.length >= 10, `rotated many times (${rotated.length})`)
  assert.equal(Object.keys(files).length, rotated.length + 1, 'every rotated file is compressed')
  const [status] = info.log_files
  assert.equal(status.dropped_lines, 0)
  t.diagnostic(`${workers * perWorker} lines, ${rotated.length} rotations (describe saw ${status.rotations} before the last lines), 0 lost, ${took} ms from start to daemon stopped`)
})

test('an unwritable log path is an error in ls and describe, never a crash', async (t) => {
  const home = useSupHome(t)
  const blocker = join(home.home, 'not-a-folder')
  writeFileSync(blocker, 'a file where a folder should be')
  const out = join(blocker, 'out.log')
  await home.sup(['start', join(APPS, 'log-flood.js'), '-o', out, '--min-uptime', '100', '--', '5', '--stay'])
  const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'online' && rows[0].log_error !== null, { what: 'a log error' })
  assert.equal(row.log_error?.code, 'SUP_ERR_LOG_UNWRITABLE')
  assert.match(String(row.log_error?.message), /cannot write log file .*not-a-folder\/out\.log: a parent of that path is a file, not a folder/)
  assert.equal(row.log_dropped_lines, 5)

  const ls = await home.sup(['ls'])
  assert.equal(ls.code, 0)
  assert.match(ls.stdout, /^warning: log-flood\[0\] cannot write log file .*out\.log: a parent of that path is a file/m)
  const describe = await home.sup(['describe', 'log-flood'])
  assert.match(describe.stdout, /error: cannot write log file/)
  const info = JSON.parse((await home.sup(['describe', 'log-flood', '--json'])).stdout)
  assert.deepEqual(info.log_files.map((/** @type {any} */ f) => [f.path, f.error?.code]), [[out, 'SUP_ERR_LOG_UNWRITABLE']])

  // The daemon is fine, and the lines are still in memory.
  assert.equal((await home.sup(['ping'])).code, 0)
  const logs = await home.sup(['logs', 'log-flood', '--nostream', '--lines', '5'])
  assert.equal(logs.stdout.split('\n').filter((l) => /0:\d:x+/.test(l)).length, 5)
})

test('PM2 log keys in an ecosystem file: combined file, JSON lines with a date format, NULL, rotation', async (t) => {
  const home = useSupHome(t)
  const config = join(home.home, 'ecosystem.json')
  writeFileSync(config, JSON.stringify({
    apps: [{
      name: 'flood',
      script: join(APPS, 'log-flood.js'),
      args: ['60'],
      out_file: join(home.home, 'out.log'),
      error_file: 'NULL',
      log_file: join(home.home, 'all.log'),
      log_type: 'json',
      log_date_format: 'YYYY',
      log_max_size: '1K',
      log_retain: 2,
      stop_exit_codes: [0],
      min_uptime: 100
    }]
  }))
  await home.sup(['start', config])
  await waitForRows(home, (rows) => rows[0]?.status === 'stopped', { what: 'the app done writing' })
  assert.equal((await home.sup(['kill'])).code, 0)

  const names = readdirSync(home.home)
  assert.deepEqual(names.filter((n) => n.startsWith('out')).length, 3, `the live file and 2 rotated ones: ${names.join(', ')}`)
  assert.ok(!names.some((n) => n.includes('err')), 'stderr was not written')
  const year = String(new Date().getFullYear())
  for (const stem of ['out', 'all']) {
    const lines = readFileSync(join(home.home, `${stem}.log`), 'utf8').trim().split('\n')
    const last = JSON.parse(lines[lines.length - 1])
    assert.deepEqual(last, { app: 'flood', instance: 0, stream: 'out', time: year, message: `0:59:${'x'.repeat(24)}` })
  }
})

test('a log file whose writes hang: the worker is held 2 s at most, then lines are dropped, counted and said', async (t) => {
  const home = useSupHome(t)
  // A named pipe nobody reads stands in for a hung disk: once its buffer is full, a write to
  // it blocks until the reader goes away.
  const fifo = join(home.home, 'stuck.log')
  execFileSync('mkfifo', [fifo])
  const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK)
  try {
    const lines = 100_000
    const start = await home.sup(['start', join(APPS, 'log-flood.js'), '-o', fifo, '--stop-exit-codes', '0', '--min-uptime', '100', '--', String(lines)])
    assert.ok(start.code === 0 || /did not come online/.test(start.stderr), start.stderr)
    // The worker gets all its lines out and exits: it was not blocked for ever.
    const [row] = await waitForRows(home, (rows) => rows[0]?.status === 'stopped' && rows[0].log_dropped_lines > 0, { timeout: 30_000, what: 'the worker done, lines dropped' })
    assert.equal(row.last_exit?.code, 0)
    // Bounded: what was not dropped is in the pipe's buffer (64 KiB), the daemon's queue
    // (1 MiB), or the one chunk read from the worker's stdout and not yet queued (64 KiB);
    // unbounded would be the whole 3.6 MB.
    const lineBytes = `0:${lines - 1}:${'x'.repeat(24)}\n`.length
    const kept = (lines - row.log_dropped_lines) * lineBytes
    assert.ok(kept <= 1024 * 1024 + 2 * 64 * 1024, `${kept} bytes kept`)
    const [file] = JSON.parse((await home.sup(['describe', 'log-flood', '--json'])).stdout).log_files
    assert.equal(file.dropped_lines, row.log_dropped_lines)
    const ls = await home.sup(['ls'])
    assert.match(ls.stdout, /^warning: log-flood\[0\] \d+ log line\(s\) \([\d.]+[km]?b\) dropped: the disk did not keep up/m)
    // The newest lines are still in memory for sup logs.
    const tail = await home.sup(['logs', 'log-flood', '--nostream', '--lines', '1'])
    assert.match(tail.stdout, new RegExp(`0:${lines - 1}:x+`))
  } finally {
    // The blocked write fails (EPIPE) once the reader is gone, so the daemon stops promptly.
    closeSync(reader)
  }
})
