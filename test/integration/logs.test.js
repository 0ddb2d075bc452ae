// @ts-check
import assert from 'node:assert/strict'
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, constants, openSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { Agent, request } from 'node:http'
import { gunzipSync } from 'node:zlib'
import { APPS, SUP_BIN, freePort, useSupHome, waitForRows } from '../helpers/sup.js'
import { waitFor, within } from '../helpers/wait.js'

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

/**
 * The workers' stdout and stderr are pipes the daemon made (FIFOs, unlinked), not socket pairs:
 * a pipe holds more lines between two reads of the daemon (daemon/logs/log-pipe.js).
 * @param {ReturnType<typeof useSupHome>} home
 * @param {number} workers
 */
async function outputOnPipes (home, workers) {
  const rows = await waitForRows(home, (rs) => rs.length === workers && rs.every((r) => r.status === 'online'), { what: `${workers} workers online` })
  for (const { pid } of rows) {
    for (const fd of [1, 2]) assert.equal(statSync(`/proc/${pid}/fd/${fd}`).isFIFO(), true, `worker ${pid}'s fd ${fd} is a pipe`)
  }
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

/**
 * `total` keep-alive GETs over `connections` connections, each to a path of its own (/0, /1, …).
 * @param {number} port
 * @param {number} total
 * @param {number} connections
 * @param {string} [prefix]
 * @returns {Promise<number>} requests answered
 */
async function keepAliveLoad (port, total, connections, prefix = '/') {
  const agent = new Agent({ keepAlive: true, maxSockets: connections })
  let next = 0
  let answered = 0
  const get = (/** @type {number} */ i) => new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path: `${prefix}${i}`, agent, timeout: 10_000 }, (res) => {
      res.resume()
      res.on('end', () => resolve(undefined))
    }).on('error', reject).on('timeout', function () { this.destroy(new Error('request timed out')) }).end()
  })
  const loop = async () => {
    while (next < total) {
      await get(next++)
      answered++
    }
  }
  try {
    await Promise.all(Array.from({ length: connections }, loop))
  } finally {
    agent.destroy()
  }
  return answered
}

test('a line per request from 2 workers under keep-alive load: every line in the files, in order per worker, none torn, through rotations; sup logs follows them all', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const total = 12_000
  const start = await home.sup(['start', join(APPS, 'request-log.js'), '-i', '2', '--name', 'reqlog', '--log-max-size', '64K', '--log-retain', '1000'],
    { env: { PORT: String(port) } })
  assert.equal(start.code, 0, start.stderr)
  // A follower, as `sup logs -f` is used: it must see every line too.
  const follower = spawn(process.execPath, [SUP_BIN, 'logs', 'reqlog', '--raw', '--lines', '0'], { env: { ...process.env, SUP_HOME: home.home }, stdio: ['ignore', 'pipe', 'ignore'] })
  t.after(() => follower.kill('SIGKILL'))
  let followed = 0
  let seen = ''
  const followedAll = new Promise((resolve) => {
    follower.stdout.setEncoding('utf8').on('data', (/** @type {string} */ text) => {
      seen += text
      const end = seen.lastIndexOf('\n') + 1
      for (const line of seen.slice(0, end).split('\n')) if (/^\d+:\d+:\/\d+x+$/.test(line)) followed++
      seen = seen.slice(end)
      if (followed >= total) resolve(undefined)
    })
  })
  // The follower is subscribed once it prints a line: warm-up requests (/w) until it does.
  let subscribed = false
  follower.stdout.once('data', () => { subscribed = true })
  await waitFor(async () => {
    if (!subscribed) await keepAliveLoad(port, 1, 1, '/w')
    return subscribed
  }, { what: 'sup logs to print a warm-up line', interval: 200 })
  assert.equal(await keepAliveLoad(port, total, 32), total)
  await outputOnPipes(home, 2)
  await within(followedAll, { what: 'sup logs to print every line', timeout: 20_000, show: () => `${followed} of ${total}` })
  assert.equal(followed, total, 'sup logs printed every line')
  // Stopping the daemon writes what is queued and closes the files.
  assert.equal((await home.sup(['kill'])).code, 0)

  /** @type {Map<string, number[]>} sequence numbers by pid, in file order */
  const byPid = new Map()
  const paths = new Set()
  let rotations = 0
  for (const instance of [0, 1]) {
    const files = readRotated(home.paths.logs, `reqlog-out-${instance}`)
    // Rotated names carry the time of the rotation: in name order, then the live file.
    const live = `reqlog-out-${instance}.log`
    const names = [...Object.keys(files).filter((name) => name !== live).sort(), live]
    rotations += names.length - 1
    for (const name of names) {
      for (const line of files[name]) {
        const m = /^(\d+):(\d+):(\/w?\d+)x{160}$/.exec(line)
        assert.ok(m, `a whole line in ${name}: ${line.slice(0, 80)}`)
        const seqs = byPid.get(m[1]) ?? []
        seqs.push(Number(m[2]))
        byPid.set(m[1], seqs)
        if (!m[3].startsWith('/w')) paths.add(m[3])
      }
    }
  }
  assert.equal(byPid.size, 2, 'both workers logged')
  for (const [pid, seqs] of byPid) {
    const firstOff = seqs.findIndex((n, i) => n !== i + 1)
    assert.equal(firstOff, -1, `worker ${pid}: lines 1..${seqs.length} in order (line ${firstOff + 1} is ${seqs[firstOff]})`)
  }
  assert.equal(paths.size, total, 'a line for every request')
  assert.ok(rotations >= 10, `rotated many times (${rotations})`)
  t.diagnostic(`${total} requests, ${rotations} rotations, ${[...byPid.values()].map((s) => s.length).join(' + ')} lines`)
})

test('sup kill right after a request-logging load: the lines still in the worker\'s socket reach the file', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const total = 3000
  const start = await home.sup(['start', join(APPS, 'request-log.js'), '--name', 'reqlog'], { env: { PORT: String(port) } })
  assert.equal(start.code, 0, start.stderr)
  assert.equal(await keepAliveLoad(port, total, 16), total)
  await outputOnPipes(home, 1)
  // At once: the last lines wait in the socket for the daemon's next read.
  assert.equal((await home.sup(['kill'])).code, 0)
  const lines = readFileSync(join(home.paths.logs, 'reqlog-out.log'), 'utf8').split('\n').slice(0, -1)
  const seqs = lines.map((line) => Number(/^\d+:(\d+):\/\d+x{160}$/.exec(line)?.[1]))
  assert.equal(seqs.length, total)
  assert.deepEqual(seqs.filter((n, i) => n !== i + 1), [], 'lines 1..total, whole and in order')
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
