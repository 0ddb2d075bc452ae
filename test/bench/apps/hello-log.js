// hello.js with a request log: one JSON line per request on stdout (about 200 bytes, the
// shape of a pino/fastify request log line) when LOG=1; none when LOG=0.
import { createServer } from 'node:http'

const log = process.env.LOG === '1'
const body = () => JSON.stringify({ hello: 'world', pid: process.pid })
let reqId = 0

createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(body())
  if (log) {
    process.stdout.write(`{"level":30,"time":${Date.now()},"pid":${process.pid},"hostname":"bench","reqId":"req-${++reqId}","res":{"statusCode":200},"req":{"method":"${req.method}","url":"${req.url}"},"responseTime":0.1,"msg":"request completed"}\n`)
  }
}).listen(Number(process.env.PORT), '127.0.0.1')
