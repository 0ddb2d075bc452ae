// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { MAX_HEAD_BYTES, cookieValue, headComplete, queryParam, readHead, routingKey } from '../../../../daemon/balance/request-key.js'

const head = (/** @type {string} */ text) => readHead(Buffer.from(text, 'latin1'))
const plain = { cookie: null, trustProxy: false }

describe('routingKey', () => {
  /** @type {Array<[string, string, { cookie: string | null, trustProxy: boolean }, string | null]>} */
  const cases = [
    ['socket.io poll with its sid', 'GET /socket.io/?EIO=4&transport=polling&t=abc&sid=Xy_z-0123456789abcdef HTTP/1.1\r\nHost: a\r\n\r\n', plain, 'sid:Xy_z-0123456789abcdef'],
    ['the upgrade of that session', 'GET /socket.io/?EIO=4&transport=websocket&sid=Xy_z-0123456789abcdef HTTP/1.1\r\nUpgrade: websocket\r\n\r\n', plain, 'sid:Xy_z-0123456789abcdef'],
    ['a handshake: a new session, no key', 'GET /socket.io/?EIO=4&transport=polling&t=abc HTTP/1.1\r\nHost: a\r\n\r\n', plain, null],
    ['a handshake with the configured cookie', 'GET /socket.io/?EIO=4&transport=polling HTTP/1.1\r\nCookie: a=1; io=s3ss10n\r\n\r\n', { cookie: 'io', trustProxy: false }, 'cookie:s3ss10n'],
    ['a cookie in a second Cookie header', 'GET / HTTP/1.1\r\ncookie: a=1\r\nCookie: app.sid=abc%2Fdef\r\n\r\n', { cookie: 'app.sid', trustProxy: false }, 'cookie:abc%2Fdef'],
    ['the sid wins over the cookie', 'GET /?EIO=4&sid=abc HTTP/1.1\r\nCookie: io=zzz\r\n\r\n', { cookie: 'io', trustProxy: false }, 'sid:abc'],
    ['a cookie not configured is not a key', 'GET / HTTP/1.1\r\nCookie: io=zzz\r\n\r\n', plain, 'addr:10.0.0.7'],
    ['plain HTTP: the client address', 'GET /api HTTP/1.1\r\nHost: a\r\n\r\n', plain, 'addr:10.0.0.7'],
    ['X-Forwarded-For ignored without trust_proxy', 'GET / HTTP/1.1\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n', plain, 'addr:10.0.0.7'],
    ['X-Forwarded-For: its first address behind a proxy', 'GET / HTTP/1.1\r\nX-Forwarded-For: 203.0.113.9, 10.0.0.1\r\n\r\n', { cookie: null, trustProxy: true }, 'addr:203.0.113.9'],
    ['an IPv6 X-Forwarded-For', 'GET / HTTP/1.1\r\nx-forwarded-for: 2001:db8::1\r\n\r\n', { cookie: null, trustProxy: true }, 'addr:2001:db8::1'],
    ['a forged X-Forwarded-For that is no address', 'GET / HTTP/1.1\r\nX-Forwarded-For: <script>\r\n\r\n', { cookie: null, trustProxy: true }, 'addr:10.0.0.7'],
    ['a sid with characters no session id has', 'GET /?EIO=4&sid=a%00b<c> HTTP/1.1\r\n\r\n', plain, null],
    ['not HTTP (TLS, another protocol): the address', '\x16\x03\x01\x02\x00\x01\x00\x01', plain, 'addr:10.0.0.7'],
    ['a head cut short still has its request line', 'GET /socket.io/?EIO=4&sid=abc HTTP/1.1\r\nHost: a', plain, 'sid:abc']
  ]
  for (const [what, bytes, options, expected] of cases) {
    test(what, () => assert.equal(routingKey(head(bytes), options, '10.0.0.7'), expected))
  }

  test('no key at all when the peer is unknown and nothing else says', () => {
    assert.equal(routingKey(head('GET / HTTP/1.1\r\n\r\n'), plain, undefined), null)
  })
})

describe('reading a head', () => {
  test('complete at the blank line, or at the size cap', () => {
    assert.equal(headComplete(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n')), false)
    assert.equal(headComplete(Buffer.from('GET / HTTP/1.1\r\nHost: a\r\n\r\n')), true)
    assert.equal(headComplete(Buffer.alloc(MAX_HEAD_BYTES, 0x61)), true)
  })

  test('the first X-Forwarded-For header counts; headers after the blank line are body', () => {
    const h = head('POST / HTTP/1.1\r\nX-Forwarded-For: 1.1.1.1\r\nX-Forwarded-For: 2.2.2.2\r\n\r\nCookie: io=body')
    assert.equal(h.forwardedFor, '1.1.1.1')
    assert.deepEqual(h.cookies, [])
  })

  test('a request line past the cap is not HTTP to us', () => {
    assert.equal(head(`GET /${'a'.repeat(MAX_HEAD_BYTES)} HTTP/1.1\r\n\r\n`).target, null)
  })

  test('query and cookie lookups', () => {
    assert.equal(queryParam('/x?a=1&sid=2', 'sid'), '2')
    assert.equal(queryParam('/x?asid=2', 'sid'), null)
    assert.equal(queryParam('/x?EIO', 'EIO'), '')
    assert.equal(queryParam('/x', 'sid'), null)
    assert.equal(cookieValue(['a=1;  io = v '], 'io'), 'v')
    assert.equal(cookieValue(['xio=v'], 'io'), null)
  })
})
