// A leaky service: answers HTTP and grows its heap by GROW_MB (default 10) every second,
// up to GROW_CAP_MB, so a max-memory-restart limit is crossed at a known pace.
import { createServer } from 'node:http'

const step = Number(process.env.GROW_MB ?? 10) * 1024 * 1024
const cap = Number(process.env.GROW_CAP_MB ?? 400) * 1024 * 1024
const hoard = []
let held = 0
// Ten small steps a second keep the growth smooth rather than a staircase.
setInterval(() => {
  if (held >= cap) return
  const chunk = Buffer.alloc(step / 10, 1)
  hoard.push(chunk)
  held += chunk.length
}, 100)

createServer((req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ pid: process.pid, held }))
}).listen(Number(process.env.PORT), '127.0.0.1')
