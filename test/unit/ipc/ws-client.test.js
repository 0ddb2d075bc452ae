// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { acceptFor, encodeFrame, FrameParser, OPCODES, sha1Base64 } from '../../../ipc/ws-client.js'

const MASK = Buffer.from([1, 2, 3, 4])

/**
 * An unmasked server frame, as the daemon's `ws` sends them.
 * @param {number} opcode
 * @param {Buffer} payload
 * @param {boolean} [fin]
 */
function serverFrame (opcode, payload, fin = true) {
  const n = payload.length
  const head = n < 126 ? Buffer.from([0, n]) : n < 65536 ? Buffer.from([0, 126, n >> 8, n & 255]) : Buffer.concat([Buffer.from([0, 127]), Buffer.from(new BigUint64Array([0n]).buffer)])
  if (n >= 65536) head.writeBigUInt64BE(BigInt(n), 2)
  head[0] = (fin ? 0x80 : 0) | opcode
  return Buffer.concat([head, payload])
}

/** @param {Buffer} frame */
function unmask (frame) {
  const len7 = frame[1] & 0x7f
  const at = len7 < 126 ? 2 : len7 === 126 ? 4 : 10
  const mask = frame.subarray(at, at + 4)
  const body = frame.subarray(at + 4)
  return Buffer.from(body.map((b, i) => b ^ mask[i & 3]))
}

describe('encodeFrame', () => {
  for (const [size, lengthByte, headerSize] of [[0, 0, 6], [125, 125, 6], [126, 126, 8], [65535, 126, 8], [65536, 127, 14]]) {
    test(`${size} bytes: final, masked, length byte ${lengthByte}`, () => {
      const payload = Buffer.alloc(size, 'a')
      const frame = encodeFrame(OPCODES.text, payload, MASK)
      assert.equal(frame[0], 0x81)
      assert.equal(frame[1], 0x80 | lengthByte)
      assert.equal(frame.length, headerSize + size)
      assert.deepEqual(unmask(frame), payload)
    })
  }
  test('close frames carry the code', () => {
    const frame = encodeFrame(OPCODES.close, Buffer.from([0x03, 0xe8]), MASK)
    assert.equal(frame[0], 0x88)
    assert.equal(unmask(frame).readUInt16BE(0), 1000)
  })
})

describe('FrameParser', () => {
  const text = Buffer.from('{"v":1,"id":1,"ok":true}')
  const big = Buffer.alloc(70_000, 'x')
  const cases = [
    ['one frame', [serverFrame(1, text)], [[true, 1, text]]],
    ['two frames in one chunk', [Buffer.concat([serverFrame(1, text), serverFrame(9, Buffer.from('p'))])], [[true, 1, text], [true, 9, Buffer.from('p')]]],
    ['a frame split byte by byte', [...serverFrame(1, text)].map((b) => Buffer.from([b])), [[true, 1, text]]],
    ['a 16-bit length', [serverFrame(1, Buffer.alloc(300, 'y'))], [[true, 1, Buffer.alloc(300, 'y')]]],
    ['a 64-bit length, in two chunks', [serverFrame(1, big).subarray(0, 5), serverFrame(1, big).subarray(5)], [[true, 1, big]]],
    ['a fragment, then its continuation', [serverFrame(1, Buffer.from('ab'), false), serverFrame(0, Buffer.from('c'))], [[false, 1, Buffer.from('ab')], [true, 0, Buffer.from('c')]]]
  ]
  for (const [name, chunks, expected] of cases) {
    test(/** @type {string} */ (name), () => {
      const parser = new FrameParser(1 << 20)
      const frames = /** @type {Buffer[]} */ (chunks).flatMap((c) => parser.push(c))
      assert.deepEqual(frames.map((f) => [f.fin, f.opcode, f.payload]), expected)
    })
  }
  const bad = [
    ['a masked server frame', Buffer.from([0x81, 0x81, 1, 2, 3, 4, 0]), /masked/],
    ['an extension bit', Buffer.from([0xc1, 0x00]), /extension/],
    ['a frame over the limit', serverFrame(1, Buffer.alloc(200)), /size limit/]
  ]
  for (const [name, chunk, message] of bad) {
    test(`rejects ${name}`, () => assert.throws(() => new FrameParser(100).push(/** @type {Buffer} */ (chunk)), message))
  }
})

test('acceptFor gives the RFC 6455 example answer', () => {
  assert.equal(acceptFor('dGhlIHNhbXBsZSBub25jZQ=='), 's3pPLMBiTxaQ9kYGzzhZRbK+xOo=')
})

test('sha1Base64 matches node:crypto across block boundaries', async () => {
  const { createHash } = await import('node:crypto')
  for (const length of [0, 1, 3, 55, 56, 57, 63, 64, 65, 119, 120, 200]) {
    const text = Array.from({ length }, (_, i) => String.fromCharCode((i * 37 + length) % 256)).join('')
    assert.equal(sha1Base64(text), createHash('sha1').update(Buffer.from(text, 'latin1')).digest('base64'), `length ${length}`)
  }
})
