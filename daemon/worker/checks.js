// @ts-check
// The three kinds of probe check (docs/probes.md): an HTTP GET whose status must match, a TCP
// connect, or a command that must exit 0. Each takes an AbortSignal (the probe's timeout).
import { spawn } from 'node:child_process'
import { request } from 'node:http'
import net from 'node:net'

/**
 * @typedef {import('../probes/probe.js').CheckResult} CheckResult
 *
 * @typedef {object} ProbeTarget what to check, as normalised in the app config
 * @property {'http' | 'tcp' | 'exec'} type
 * @property {string} host
 * @property {number | null} port
 * @property {string} path http: the path to GET
 * @property {number | null} status http: the status expected; null = any 2xx or 3xx, as Kubernetes
 * @property {string[]} command exec: argv, run without a shell in the app's cwd
 */

/**
 * @param {ProbeTarget} target
 * @param {{ cwd: string, env: Record<string, string> }} context
 * @returns {(signal: AbortSignal) => Promise<CheckResult>}
 */
export function checkFor (target, context) {
  if (target.type === 'http') return (signal) => httpCheck(target, signal)
  if (target.type === 'tcp') return (signal) => tcpCheck(target, signal)
  return (signal) => execCheck(target.command, context, signal)
}

/**
 * @param {ProbeTarget} target
 * @param {AbortSignal} signal
 * @returns {Promise<CheckResult>}
 */
export function httpCheck ({ host, port, path, status }, signal) {
  return new Promise((resolve) => {
    const req = request({ host, port: port ?? 80, path, method: 'GET', agent: false, signal, headers: { 'user-agent': 'sup-probe', connection: 'close' } }, (res) => {
      res.resume()
      const code = res.statusCode ?? 0
      const ok = status === null ? code >= 200 && code < 400 : code === status
      resolve(ok ? { ok: true } : { ok: false, reason: `GET ${path} answered ${code}${status === null ? '' : `, expected ${status}`}` })
    })
    req.on('error', (err) => resolve({ ok: false, reason: `GET ${path}: ${/** @type {any} */ (err).code ?? err.message}` }))
    req.end()
  })
}

/**
 * @param {ProbeTarget} target
 * @param {AbortSignal} signal
 * @returns {Promise<CheckResult>}
 */
export function tcpCheck ({ host, port }, signal) {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port: port ?? 0, signal })
    socket.once('connect', () => {
      socket.destroy()
      resolve({ ok: true })
    })
    socket.once('error', (err) => resolve({ ok: false, reason: `connect ${host}:${port}: ${/** @type {any} */ (err).code ?? err.message}` }))
  })
}

/**
 * @param {string[]} command
 * @param {{ cwd: string, env: Record<string, string> }} context
 * @param {AbortSignal} signal
 * @returns {Promise<CheckResult>}
 */
export function execCheck (command, { cwd, env }, signal) {
  return new Promise((resolve) => {
    const child = spawn(command[0], command.slice(1), { cwd, env, stdio: 'ignore', signal, killSignal: 'SIGKILL' })
    child.once('error', (err) => resolve({ ok: false, reason: `${command[0]}: ${/** @type {any} */ (err).code ?? err.message}` }))
    child.once('exit', (code, sig) => resolve(code === 0 ? { ok: true } : { ok: false, reason: `${command.join(' ')} exited with ${sig ? `signal ${sig}` : `code ${code}`}` }))
  })
}
