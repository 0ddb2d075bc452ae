// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { hostIo, runOnHosts, summarise } from '../../../../client/fleet/run.js'

/** @returns {import('../../../../client/cli.js').CliIo & { lines: string[] }} */
const capture = () => {
  /** @type {string[]} */
  const lines = []
  return { lines, out: (t) => lines.push(`out ${t}`), err: (t) => lines.push(`err ${t}`), env: {}, cwd: '/' }
}

describe('hostIo', () => {
  test('for people: every line prefixed with the host, names padded to one width', () => {
    const io = capture()
    hostIo(io, 'web1', 6, false).out('a\nb')
    hostIo(io, 'web10x', 6, false).err('sup: app "api" not found')
    assert.deepEqual(io.lines, ['out web1   | a\nweb1   | b', 'err web10x | sup: app "api" not found'])
  })

  test('--json: a document, JSON lines and arrays get a host field; an error is a line of its own too', () => {
    const io = capture()
    const web1 = hostIo(io, 'web1', 4, true)
    web1.out(JSON.stringify({ name: 'api' }, null, 2))
    web1.out('{"line":"x"}\n{"line":"y"}')
    web1.out('[{"id":0},{"id":1}]')
    web1.err('sup: nope')
    assert.deepEqual(io.lines, [
      'out {"host":"web1","name":"api"}',
      'out {"host":"web1","line":"x"}\n{"host":"web1","line":"y"}',
      'out [{"host":"web1","id":0},{"host":"web1","id":1}]',
      'out {"host":"web1","error":"nope"}',
      'err web1 | sup: nope'
    ])
  })
})

describe('summarise', () => {
  test('all well: 0 and nothing said', () => {
    const io = capture()
    assert.equal(summarise([{ label: 'a', code: 0 }, { label: 'b', code: 0 }], [], 'stop', io), 0)
    assert.deepEqual(io.lines, [])
  })
  test('a failure: 1 and which hosts', () => {
    const io = capture()
    assert.equal(summarise([{ label: 'a', code: 0 }, { label: 'b', code: 1 }], [], 'stop', io), 1)
    assert.deepEqual(io.lines, ['err sup: 1 of 2 hosts failed: b'])
  })
  test('a rolling action stopped: the hosts not touched', () => {
    const io = capture()
    assert.equal(summarise([{ label: 'a', code: 0 }, { label: 'b', code: 1 }], ['c', 'd'], 'reload', io), 1)
    assert.deepEqual(io.lines, ['err sup: reload stopped at b, after 1 host(s) done; not touched: c, d'])
  })
})

describe('runOnHosts refuses what would carry this machine\'s files or environment', () => {
  for (const argv of [['start', 'app.js'], ['kill'], ['reload', 'ecosystem.config.js'], ['restart', 'api', '--update-env'], ['ls', '--watch']]) {
    test(argv.join(' '), async () => {
      await assert.rejects(runOnHosts(['web1'], argv, capture(), async () => 0), { code: 'SUP_ERR_CLI_UNSUPPORTED' })
    })
  }
})
