// @ts-check
import assert from 'node:assert/strict'
import { hostname } from 'node:os'
import { test } from 'node:test'
import { allowedHosts } from '../../../../daemon/metrics/endpoint.js'

test('the Host names the endpoint answers: loopback, the machine, the address bound, with or without the port', () => {
  const local = allowedHosts('127.0.0.1', 9209)
  for (const host of ['localhost', 'localhost:9209', '127.0.0.1:9209', '[::1]:9209', `${hostname().toLowerCase()}:9209`]) assert.ok(local.has(host), host)
  for (const host of ['evil.example', 'evil.example:9209', 'localhost.evil.example', '127.0.0.1:80', '*']) assert.ok(!local.has(host), host)
  assert.ok(allowedHosts('10.0.0.5', 9209).has('10.0.0.5:9209'))
  assert.ok(allowedHosts('::1', 9209).has('[::1]:9209'))
  assert.ok(allowedHosts('0.0.0.0', 9209).has('*'), 'every interface: the address a connection came in on')
})
