// @ts-check
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, test } from 'node:test'
import pino from 'pino'
import { APP_DEFAULTS } from '../../../ipc/app-config.js'
import { LogSink, logPathFor } from '../../../daemon/log-sink.js'

/** @typedef {import('../../../ipc/app-config.js').AppConfig} AppConfig */
/** @typedef {import('../../../daemon/log-ring.js').LogEntry} LogEntry */

const LOGS = '/home/u/.sup/logs'
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** @param {Partial<AppConfig>} [overrides] @returns {AppConfig} */
const appConfig = (overrides = {}) => ({ ...structuredClone({ ...APP_DEFAULTS }), name: 'api', script: '/srv/api.js', cwd: '/srv', ...overrides })

describe('logPathFor', () => {
  /** @type {Array<[string, Partial<AppConfig>, 'out' | 'err', number, string]>} */
  const cases = [
    ['fork, one instance', {}, 'out', 0, `${LOGS}/api-out.log`],
    ['fork, one instance, stderr', {}, 'err', 0, `${LOGS}/api-err.log`],
    ['cluster', { exec_mode: 'cluster', instances: 4 }, 'out', 2, `${LOGS}/api-out-2.log`],
    ['cluster of one still gets a suffix', { exec_mode: 'cluster', instances: 1 }, 'err', 0, `${LOGS}/api-err-0.log`],
    ['fork with several instances', { instances: 3 }, 'out', 1, `${LOGS}/api-out-1.log`],
    ['cluster with merge_logs', { exec_mode: 'cluster', instances: 4, merge_logs: true }, 'out', 3, `${LOGS}/api-out.log`],
    ['custom out_file, one instance', { out_file: '/var/log/api/app.log' }, 'out', 0, '/var/log/api/app.log'],
    ['custom out_file is not used for stderr', { out_file: '/var/log/api/app.log' }, 'err', 0, `${LOGS}/api-err.log`],
    ['custom error_file', { error_file: '/var/log/api/errors.txt' }, 'err', 0, '/var/log/api/errors.txt'],
    ['custom out_file, per instance: suffix before the extension', { out_file: '/var/log/api/app.log', exec_mode: 'cluster', instances: 2 }, 'out', 1, '/var/log/api/app-1.log'],
    ['custom file with two dots', { out_file: '/var/log/api.v2.log', instances: 2 }, 'out', 0, '/var/log/api.v2-0.log'],
    ['custom file without extension', { error_file: '/var/log/api-errors', exec_mode: 'cluster', instances: 2 }, 'err', 1, '/var/log/api-errors-1'],
    ['custom file, merge_logs', { out_file: '/var/log/app.log', exec_mode: 'cluster', instances: 2, merge_logs: true }, 'out', 1, '/var/log/app.log'],
    ['/dev/null', { out_file: '/dev/null' }, 'out', 0, '/dev/null'],
    ['/dev/null in cluster mode gets no suffix', { out_file: '/dev/null', exec_mode: 'cluster', instances: 2 }, 'out', 1, '/dev/null'],
    ['NULL', { error_file: 'NULL', exec_mode: 'cluster', instances: 2 }, 'err', 1, '/dev/null']
  ]
  for (const [name, overrides, stream, instance, expected] of cases) {
    test(`${name} -> ${expected}`, () => assert.equal(logPathFor(appConfig(overrides), LOGS, stream, instance), expected))
  }
})

describe('LogSink', () => {
  /**
   * A sink over a fresh temp dir, removed after the test.
   * @param {import('node:test').TestContext} t
   * @param {Partial<AppConfig>} [overrides]
   */
  async function makeSink (t, overrides = {}) {
    const dir = await mkdtemp(join(tmpdir(), 'sup-log-sink-'))
    t.after(() => rm(dir, { recursive: true, force: true }))
    const config = appConfig(overrides)
    const sink = new LogSink({ config, logsDir: dir, logger: pino({ level: 'silent' }) })
    /** @type {LogEntry[]} */
    const emitted = []
    sink.on('line', (entry) => emitted.push(entry))
    return { dir, config, sink, emitted }
  }

  /**
   * Feed chunks through a PassThrough attached to the sink, and wait until it has ended.
   * @param {LogSink} sink
   * @param {Array<string | Buffer>} chunks
   * @param {{ id: number, instance: number, stream: 'out' | 'err' }} [source]
   */
  async function feed (sink, chunks, source = { id: 0, instance: 0, stream: 'out' }) {
    const input = new PassThrough()
    sink.attach(input, source)
    // Registered after attach(), so the sink has written its last partial line by then.
    const ended = once(input, 'end')
    for (const chunk of chunks) input.write(chunk)
    input.end()
    await ended
  }

  /**
   * Close the sink and wait until every file is flushed and closed.
   * @param {LogSink} sink
   */
  async function closeSink (sink) {
    const closed = [...sink.files.values()].map((file) => once(file, 'close'))
    sink.close()
    await Promise.all(closed)
  }

  /** @param {string} path */
  const linesOf = async (path) => (await readFile(path, 'utf8')).split('\n')

  test('splits chunks into lines, mid-line splits included', async (t) => {
    const { dir, sink, emitted } = await makeSink(t)
    await feed(sink, ['hel', 'lo\nwor', 'ld\n\nsecond ', 'to last\nlast line without newline'])
    await closeSink(sink)
    const expected = ['hello', 'world', '', 'second to last', 'last line without newline']
    assert.deepEqual(sink.ring.last(100).map((e) => e.line), expected)
    assert.deepEqual(emitted.map((e) => e.line), expected)
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), expected.join('\n') + '\n')
  })

  test('ring entries say where each line came from', async (t) => {
    const { sink } = await makeSink(t, { exec_mode: 'cluster', instances: 2 })
    const before = Date.now()
    await feed(sink, ['boom\n'], { id: 7, instance: 1, stream: 'err' })
    await closeSink(sink)
    const [entry] = sink.ring.last(1)
    assert.deepEqual({ ...entry, time: 0 }, { time: 0, app: 'api', id: 7, instance: 1, stream: 'err', line: 'boom' })
    assert.ok(entry.time >= before && entry.time <= Date.now())
  })

  test('a multi-byte character split across chunks stays whole', async (t) => {
    const { dir, sink } = await makeSink(t)
    const bytes = Buffer.from('héllo → wörld\n')
    await feed(sink, [bytes.subarray(0, 2), bytes.subarray(2, 9), bytes.subarray(9)])
    await closeSink(sink)
    assert.deepEqual(sink.ring.last(10).map((e) => e.line), ['héllo → wörld'])
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), 'héllo → wörld\n')
  })

  test('each instance of a cluster app writes its own files', async (t) => {
    const { dir, sink } = await makeSink(t, { exec_mode: 'cluster', instances: 2 })
    await feed(sink, ['zero out\n'], { id: 0, instance: 0, stream: 'out' })
    await feed(sink, ['one out\n'], { id: 1, instance: 1, stream: 'out' })
    await feed(sink, ['one err\n'], { id: 1, instance: 1, stream: 'err' })
    await closeSink(sink)
    assert.deepEqual((await readdir(dir)).sort(), ['api-err-1.log', 'api-out-0.log', 'api-out-1.log'])
    assert.equal(await readFile(join(dir, 'api-out-0.log'), 'utf8'), 'zero out\n')
    assert.equal(await readFile(join(dir, 'api-out-1.log'), 'utf8'), 'one out\n')
    assert.equal(await readFile(join(dir, 'api-err-1.log'), 'utf8'), 'one err\n')
  })

  test('merge_logs shares one file between instances', async (t) => {
    const { dir, sink } = await makeSink(t, { exec_mode: 'cluster', instances: 2, merge_logs: true })
    await feed(sink, ['from 0\n'], { id: 0, instance: 0, stream: 'out' })
    await feed(sink, ['from 1\n'], { id: 1, instance: 1, stream: 'out' })
    await closeSink(sink)
    assert.deepEqual(await readdir(dir), ['api-out.log'])
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), 'from 0\nfrom 1\n')
  })

  test('appends to an existing file', async (t) => {
    const { dir, sink, config } = await makeSink(t)
    await feed(sink, ['first\n'])
    await closeSink(sink)
    const again = new LogSink({ config, logsDir: dir, logger: pino({ level: 'silent' }) })
    await feed(again, ['second\n'])
    await closeSink(again)
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), 'first\nsecond\n')
  })

  test('time: true prefixes each line in the file with an ISO timestamp', async (t) => {
    const { dir, sink } = await makeSink(t, { time: true })
    await feed(sink, ['a\nb', '\n'])
    await closeSink(sink)
    const lines = await linesOf(join(dir, 'api-out.log'))
    assert.equal(lines.pop(), '')
    assert.equal(lines.length, 2)
    for (const [i, line] of lines.entries()) {
      const [, stamp, text] = /** @type {RegExpMatchArray} */ (line.match(/^(\S+): (.*)$/))
      assert.match(stamp, ISO)
      assert.equal(text, ['a', 'b'][i])
    }
    assert.deepEqual(sink.ring.last(10).map((e) => e.line), ['a', 'b'], 'the ring keeps the raw line')
  })

  test("log_type 'json' writes one JSON object per line", async (t) => {
    const { dir, sink } = await makeSink(t, { log_type: 'json', exec_mode: 'cluster', instances: 2 })
    await feed(sink, ['{"not":"parsed"}\nplain "quoted"\n'], { id: 3, instance: 1, stream: 'err' })
    await closeSink(sink)
    const lines = await linesOf(join(dir, 'api-err-1.log'))
    assert.equal(lines.pop(), '')
    const objects = lines.map((line) => JSON.parse(line))
    assert.deepEqual(objects.map((o) => Object.keys(o).sort()), Array(2).fill(['app', 'instance', 'message', 'stream', 'time']))
    assert.deepEqual(objects.map(({ time, ...rest }) => rest), [
      { app: 'api', instance: 1, stream: 'err', message: '{"not":"parsed"}' },
      { app: 'api', instance: 1, stream: 'err', message: 'plain "quoted"' }
    ])
    for (const o of objects) assert.match(o.time, ISO)
  })

  for (const disabled of ['/dev/null', 'NULL']) {
    test(`out_file ${disabled} writes no file but keeps the ring`, async (t) => {
      const { dir, sink } = await makeSink(t, { out_file: disabled })
      await feed(sink, ['kept in memory\n'])
      assert.equal(sink.files.size, 0)
      await closeSink(sink)
      assert.deepEqual(await readdir(dir), [])
      assert.deepEqual(sink.ring.last(10).map((e) => e.line), ['kept in memory'])
      assert.ok(!sink.paths().includes('/dev/null'))
    })
  }

  test('a line longer than 64 KiB without a newline is cut', async (t) => {
    const { sink } = await makeSink(t)
    const long = 'x'.repeat(64 * 1024 + 1)
    await feed(sink, [long, 'tail\n'])
    await closeSink(sink)
    assert.deepEqual(sink.ring.last(10).map((e) => e.line.length), [long.length, 4])
  })

  test('attach(null) is a no-op', async (t) => {
    const { sink } = await makeSink(t)
    sink.attach(null, { id: 0, instance: 0, stream: 'out' })
    assert.equal(sink.files.size, 0)
    assert.deepEqual(sink.ring.last(10), [])
  })

  test('flush empties the ring and the files', async (t) => {
    const { dir, sink } = await makeSink(t)
    await feed(sink, ['one\ntwo\n'])
    await closeSink(sink)
    await sink.flush()
    assert.deepEqual(sink.ring.last(10), [])
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), '')
  })
})
