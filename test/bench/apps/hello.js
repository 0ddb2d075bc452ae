// The seeds' hello service: a tiny JSON answer (with the pid, so a bench can tell workers apart).
import { createServer } from 'node:http'

const body = () => JSON.stringify({ hello: 'world', pid: process.pid })

createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(body())
}).listen(Number(process.env.PORT), '127.0.0.1')
