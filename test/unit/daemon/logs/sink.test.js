// @ts-check
import assert from 'node:assert/strict'
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { describe, test } from 'node:test'
import pino from 'pino'
import { APP_DEFAULTS } from '../../../../ipc/app-config.js'
import { LogFiles } from '../../../../daemon/logs/files.js'
import { LogSink, PARTIAL_IDLE_MS } from '../../../../daemon/logs/sink.js'
import { fakeClock } from '../../../helpers/fake-effects.js'
import { settle, waitForEvent } from '../../../helpers/wait.js'

/** @typedef {import('../../../../ipc/app-config.js').AppConfig} AppConfig */
/** @typedef {import('../../../../daemon/logs/ring.js').LogEntry} LogEntry */

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** @param {Partial<AppConfig>} [overrides] @returns {AppConfig} */
const appConfig = (overrides = {}) => ({ ...structuredClone({ ...APP_DEFAULTS }), name: 'api', script: '/srv/api.js', cwd: '/srv', ...overrides })

describe('LogSink', () => {
  /**
   * A sink over a fresh temp dir, removed after the test.
   * @param {import('node:test').TestContext} t
   * @param {Partial<AppConfig>} [overrides]
   * @param {Partial<ConstructorParameters<typeof LogSink>[0]>} [options]
   */
  async function makeSink (t, overrides = {}, options = {}) {
    const dir = await mkdtemp(join(tmpdir(), 'sup-log-sink-'))
    t.after(() => rm(dir, { recursive: true, force: true }))
    const config = appConfig({ ...overrides, out_file: overrides.out_file?.replace('$DIR', dir) ?? null })
    const sink = new LogSink({ config, logsDir: dir, logger: pino({ level: 'silent' }), ...options })
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
    const ended = waitForEvent(input, 'end', { what: 'input end' })
    for (const chunk of chunks) input.write(chunk)
    input.end()
    await ended
  }

  /**
   * Close the sink and wait until every file is flushed and closed.
   * @param {LogSink} sink
   */
  async function closeSink (sink) {
    await sink.close()
    assert.equal(sink.files.open.size, 0, 'every file is closed')
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

  test('while nobody follows the lines, bytes go to the file as they came: no line emitted, the ring still answers', async (t) => {
    const { dir, sink, emitted } = await makeSink(t, {}, { linesWanted: () => false })
    const e = Buffer.from('é') // two bytes, cut between chunks
    const bad = Buffer.from([0xff, 0xfe]) // not UTF-8: kept byte for byte in the file
    await feed(sink, [Buffer.concat([Buffer.from('one\ncaf'), e.subarray(0, 1)]), Buffer.concat([e.subarray(1), Buffer.from('\n'), bad, Buffer.from('\nlast')])])
    await closeSink(sink)
    assert.deepEqual(emitted, [])
    assert.deepEqual(await readFile(join(dir, 'api-out.log')), Buffer.concat([Buffer.from('one\ncafé\n'), bad, Buffer.from('\nlast\n')]))
    assert.deepEqual(sink.ring.last(100).map((x) => x.line), ['one', 'café', '\ufffd\ufffd', 'last'])
    assert.deepEqual(sink.ring.last(1)[0], { ...sink.ring.last(1)[0], app: 'api', id: 0, instance: 0, stream: 'out' })
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

  test('lines are stamped by the wall clock it is given', async (t) => {
    const { sink } = await makeSink(t, {}, { wallNow: () => 1_234_567 })
    await feed(sink, ['one\n'])
    await closeSink(sink)
    assert.equal(sink.ring.last(1)[0].time, 1_234_567)
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
      assert.equal(sink.opened.size, 0)
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

  test('a partial line is written as a line once its stream is quiet, not cut while it is still arriving', async (t) => {
    const clock = fakeClock()
    const { sink, emitted } = await makeSink(t, {}, { timers: clock.timers })
    const input = new PassThrough()
    sink.attach(input, { id: 0, instance: 0, stream: 'err' })
    const lines = () => emitted.map((e) => e.line)
    input.write('errwrite')
    await settle()
    await clock.advance(PARTIAL_IDLE_MS - 1)
    input.write(' more')
    await settle()
    await clock.advance(PARTIAL_IDLE_MS - 1)
    assert.deepEqual(lines(), [], 'chunks closer together than the idle time stay one line')
    await clock.advance(PARTIAL_IDLE_MS)
    assert.deepEqual(lines(), ['errwrite more'])
    input.write('whole\nnext')
    await settle()
    assert.deepEqual(lines(), ['errwrite more', 'whole'])
    await clock.advance(PARTIAL_IDLE_MS)
    assert.deepEqual(lines(), ['errwrite more', 'whole', 'next'])
    input.write('last')
    const ended = waitForEvent(input, 'end', { what: 'input end' })
    input.end()
    await ended
    assert.deepEqual(lines(), ['errwrite more', 'whole', 'next', 'last'], 'the end writes what is left at once')
    assert.equal(clock.pending().count, 0, 'no timer outlives the stream')
    await closeSink(sink)
  })

  test('a partial line in a stream paused for a congested file is not cut: the rest may be waiting in the pipe', async (t) => {
    const clock = fakeClock()
    const { sink, emitted } = await makeSink(t, {}, { timers: clock.timers, maxPause: 10 * PARTIAL_IDLE_MS, files: new LogFiles({ logger: pino({ level: 'silent' }), limits: { highWater: 16 } }) })
    const input = new PassThrough()
    sink.attach(input, { id: 0, instance: 0, stream: 'out' })
    const lines = () => emitted.map((e) => e.line)
    input.write('a line that is longer than highWater\nthe start of the next')
    assert.equal(input.isPaused(), true)
    // The file stays congested (a slow disk) until the test says otherwise.
    const file = /** @type {import('../../../../daemon/logs/file.js').LogFile} */ (sink.opened.values().next().value)
    const congested = file.congested.bind(file)
    file.congested = () => true
    await settle()
    await clock.advance(3 * PARTIAL_IDLE_MS)
    assert.equal(input.isPaused(), true)
    assert.deepEqual(lines(), ['a line that is longer than highWater'], 'held: the partial line waits')
    file.congested = congested
    if (file.congested()) await waitForEvent(file, 'drain', { what: 'file drain' })
    else file.emit('drain')
    assert.equal(input.isPaused(), false)
    input.write(' and its end\n')
    await settle()
    assert.deepEqual(lines(), ['a line that is longer than highWater', 'the start of the next and its end'])
    input.end()
    await closeSink(sink)
  })

  test('attach(null) is a no-op', async (t) => {
    const { sink } = await makeSink(t)
    sink.attach(null, { id: 0, instance: 0, stream: 'out' })
    assert.equal(sink.opened.size, 0)
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

  test('log_file gets stdout and stderr together, as well as their own files', async (t) => {
    const { dir, sink } = await makeSink(t, { log_file: true })
    await feed(sink, ['to out\n'], { id: 0, instance: 0, stream: 'out' })
    await feed(sink, ['to err\n'], { id: 0, instance: 0, stream: 'err' })
    await feed(sink, ['out again\n'], { id: 0, instance: 0, stream: 'out' })
    await closeSink(sink)
    assert.deepEqual((await readdir(dir)).sort(), ['api-err.log', 'api-out.log', 'api.log'])
    assert.equal(await readFile(join(dir, 'api.log'), 'utf8'), 'to out\nto err\nout again\n')
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), 'to out\nout again\n')
  })

  test('rotates with the app\'s own settings', async (t) => {
    const { dir, sink } = await makeSink(t, { log_max_size: 30, log_retain: 100 })
    await feed(sink, ['0123456789\n'.repeat(10)])
    await closeSink(sink)
    const names = await readdir(dir)
    assert.ok(names.length >= 4, names.join(', '))
    assert.ok(names.every((n) => n === 'api-out.log' || /^api-out__[\d_-]+\.log$/.test(n)), names.join(', '))
  })

  test('a file that cannot keep up pauses the stream until it drains', async (t) => {
    const { sink } = await makeSink(t, {}, { files: new LogFiles({ logger: pino({ level: 'silent' }), limits: { highWater: 16 } }) })
    const input = new PassThrough()
    sink.attach(input, { id: 0, instance: 0, stream: 'out' })
    input.write('a line that is longer than highWater\n')
    assert.equal(input.isPaused(), true)
    const file = /** @type {import('../../../../daemon/logs/file.js').LogFile} */ (sink.opened.values().next().value)
    await waitForEvent(file, 'drain', { what: 'file drain' })
    assert.equal(input.isPaused(), false)
    input.end()
    await closeSink(sink)
  })

  test('a stream is never paused longer than maxPause, whatever the file does', async (t) => {
    /** @type {Array<() => void>} */
    const pending = []
    const timers = { setTimeout: (/** @type {() => void} */ fn, /** @type {number} */ ms) => { assert.equal(ms, 1234); pending.push(fn); return fn }, clearTimeout: () => {} }
    const { sink } = await makeSink(t, {}, { timers, maxPause: 1234, files: new LogFiles({ logger: pino({ level: 'silent' }), limits: { highWater: 16 } }) })
    const input = new PassThrough()
    sink.attach(input, { id: 0, instance: 0, stream: 'out' })
    input.write('a line that is longer than highWater\n')
    assert.equal(input.isPaused(), true)
    assert.equal(pending.length, 1)
    pending[0]()
    assert.equal(input.isPaused(), false)
    input.end()
    await closeSink(sink)
  })

  test('an unwritable file shows in the status of the instances that write to it', async (t) => {
    const { dir, sink } = await makeSink(t, { out_file: '$DIR/api-out.log/x.log', exec_mode: 'cluster', instances: 2 })
    await writeFile(join(dir, 'api-out.log'), 'a file where a folder should be')
    await feed(sink, ['one\ntwo\n'], { id: 0, instance: 0, stream: 'out' })
    await Promise.all([...sink.opened.values()].map((f) => f.pumping))
    await feed(sink, ['three\n'], { id: 0, instance: 0, stream: 'out' })
    const status = sink.statusFor(0)
    assert.equal(status.log_error?.code, 'SUP_ERR_LOG_UNWRITABLE')
    assert.deepEqual([status.log_dropped_lines, status.log_dropped_bytes], [3, 14])
    assert.deepEqual(sink.statusFor(1), { log_error: null, log_dropped_lines: 0, log_dropped_bytes: 0 })
    assert.deepEqual(sink.fileStatus().map((f) => [f.path, f.error?.code]), [[join(dir, 'api-out.log', 'x-0.log'), 'SUP_ERR_LOG_UNWRITABLE']])
    assert.deepEqual(sink.ring.last(10).map((e) => e.line), ['one', 'two', 'three'], 'the ring keeps every line')
    await closeSink(sink)
  })

  test('flush also deletes rotated files', async (t) => {
    const { dir, sink } = await makeSink(t, { log_max_size: 30, log_retain: 100 })
    await feed(sink, ['0123456789\n'.repeat(10)])
    await Promise.all([...sink.opened.values()].map((f) => f.pumping))
    await sink.flush()
    await closeSink(sink)
    assert.deepEqual(await readdir(dir), ['api-out.log'])
    assert.equal(await readFile(join(dir, 'api-out.log'), 'utf8'), '')
  })
})
