// The seeds' CPU workload: every request finds the primes up to 10,000 the naive way.
import { createServer } from 'node:http'

/** @param {number} limit */
function findPrimes (limit) {
  const primes = []
  for (let i = 2; i <= limit; i++) {
    let isPrime = true
    for (let j = 2; j < i; j++) {
      if (i % j === 0) {
        isPrime = false
        break
      }
    }
    if (isPrime) primes.push(i)
  }
  return primes
}

createServer((req, res) => {
  const primes = findPrimes(10_000)
  res.writeHead(200, { 'content-type': 'application/json' })
  res.end(JSON.stringify({ limit: 10_000, count: primes.length, pid: process.pid }))
}).listen(Number(process.env.PORT), '127.0.0.1')
