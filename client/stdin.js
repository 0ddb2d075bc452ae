// @ts-check
// PM2's "-" target (`cat apps.json | sup start -`): the config is whatever comes on stdin.

/**
 * Read stdin to its end.
 * @param {NodeJS.ReadableStream} [stream]
 * @returns {Promise<string>}
 */
export async function readStdin (stream = process.stdin) {
  let text = ''
  stream.setEncoding('utf8')
  for await (const chunk of stream) text += chunk
  return text
}
