// A tiny JSON service: `sup start examples/hello.js -i max` runs one per CPU on port 3000.
import { createServer } from 'node:http'

const port = Number(process.env.PORT ?? 3000)

createServer((req, res) => {
  res.setHeader('content-type', 'application/json')
  res.end(JSON.stringify({ hello: 'world', pid: process.pid }))
}).listen(port, () => {
  console.log(`hello listening on http://127.0.0.1:${port} (pid ${process.pid})`)
})
