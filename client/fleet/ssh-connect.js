// @ts-check
// Reach a host's daemon through OpenSSH: `ssh <host> sup dial-stdio` joins the ssh session's
// stdin and stdout to the daemon's socket over there, and the CLI speaks its WebSocket over
// that pipe. The user's own ssh (config, keys, agent, known hosts); no local socket file, no
// listener; the trust checks of the socket run on the far side, as that user.
import { spawn } from 'node:child_process'
import { Duplex } from 'node:stream'
import { SupError } from '../../ipc/errors.js'
import { escapeControls } from '../../ipc/terminal-text.js'
import { Connection } from '../../ipc/transport.js'
import { PROTOCOL_VERSION } from '../../ipc/version.js'
import { UnixWebSocket } from '../../ipc/ws-client.js'

/** Seconds ssh may take to open the TCP connection (ConnectTimeout), unless SUP_HOST_TIMEOUT says. */
export const DEFAULT_TIMEOUT_S = 10
/** Beyond ConnectTimeout: authentication, the remote sup starting, hello. */
const ANSWER_GRACE_MS = 10_000
/** ssh's stderr kept for the error line. */
const STDERR_CAP = 8192

/**
 * A child process's stdin and stdout as one stream, ended when the child is.
 */
class ChildStream extends Duplex {
  /** @param {import('node:child_process').ChildProcessWithoutNullStreams} child */
  constructor (child) {
    super()
    this.child = child
    child.stdout.on('data', (chunk) => { if (!this.push(chunk)) child.stdout.pause() })
    child.stdout.on('end', () => this.push(null))
    child.stdin.on('error', () => {})
    child.on('close', () => this.destroy())
  }

  _read () {
    this.child.stdout.resume()
  }

  /** @param {Buffer} chunk @param {BufferEncoding} _encoding @param {(err?: Error | null) => void} callback */
  _write (chunk, _encoding, callback) {
    this.child.stdin.write(chunk, callback)
  }

  /** @param {(err?: Error | null) => void} callback */
  _final (callback) {
    this.child.stdin.end(callback)
  }

  /** @param {Error | null} err @param {(err?: Error | null) => void} callback */
  _destroy (err, callback) {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill()
    callback(err)
  }

  /** A CLI about to exit does not wait for ssh. */
  unref () {
    this.child.unref()
    for (const s of [this.child.stdin, this.child.stdout, this.child.stderr]) /** @type {any} */ (s).unref?.()
  }
}

/**
 * The ssh command line: SUP_SSH_COMMAND's words first (so they win over ours: ssh keeps the
 * first value of an option), then ours, then `--`, the destination and the remote command.
 * @param {import('./hosts.js').Host} host
 * @param {NodeJS.ProcessEnv} env
 * @returns {{ file: string, args: string[], timeoutS: number }}
 */
export function sshCommand (host, env) {
  const [file, ...words] = (env.SUP_SSH_COMMAND || 'ssh').trim().split(/\s+/)
  const timeoutS = readTimeout(env)
  const remote = `${env.SUP_REMOTE_SUP || 'sup'} dial-stdio${host.home === null ? '' : ` --home ${quoteForShell(host.home)}`}`
  const args = [
    ...words,
    '-T',
    '-o', 'BatchMode=yes',
    '-o', `ConnectTimeout=${timeoutS}`,
    '-o', 'ServerAliveInterval=5',
    '-o', 'ServerAliveCountMax=3',
    '--', host.destination, remote
  ]
  return { file, args, timeoutS }
}

/** @param {NodeJS.ProcessEnv} env */
function readTimeout (env) {
  const value = env.SUP_HOST_TIMEOUT
  if (value === undefined || value === '') return DEFAULT_TIMEOUT_S
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > 600) {
    throw new SupError('SUP_ERR_CLI_USAGE', { reason: `SUP_HOST_TIMEOUT takes whole seconds from 1 to 600, not "${value}"` })
  }
  return Number(value)
}

/** @param {string} text one word for a POSIX shell */
function quoteForShell (text) {
  return `'${text.replace(/'/g, "'\\''")}'`
}

/**
 * Connect to the host's daemon and say hello; rejects with SUP_ERR_HOST_UNREACHABLE (what ssh
 * or the remote sup said) or SUP_ERR_HOST_TIMEOUT, never hangs.
 * @param {import('./hosts.js').Host} host
 * @param {string} label the host's name in messages
 * @param {NodeJS.ProcessEnv} env
 * @returns {Promise<Connection>}
 */
export function connectHost (host, label, env) {
  const { file, args, timeoutS } = sshCommand(host, env)
  const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env })
  let stderr = ''
  child.stderr.on('data', (chunk) => { if (stderr.length < STDERR_CAP) stderr += chunk })
  const exited = new Promise((resolve) => child.once('close', resolve))
  /** Why ssh ended: the last line it (or sup over there) wrote, else its exit. @param {unknown} code */
  const reason = (code) => escapeControls(stderr.trim().split('\n').filter(Boolean).pop()?.replace(/^sup: /, '') ?? `ssh exited with ${code}`)
  return new Promise((resolve, reject) => {
    let settled = false
    /** @param {Error | null} err @param {Connection} [conn] */
    const settle = (err, conn) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      if (err) {
        child.kill()
        reject(err)
      } else resolve(/** @type {Connection} */ (conn))
    }
    const timer = setTimeout(() => settle(new SupError('SUP_ERR_HOST_TIMEOUT', { host: label, seconds: timeoutS + ANSWER_GRACE_MS / 1000 })), timeoutS * 1000 + ANSWER_GRACE_MS)
    child.once('error', (err) => settle(new SupError('SUP_ERR_HOST_UNREACHABLE', { host: label, reason: `cannot run ${file}: ${err.message}` })))
    const ws = new UnixWebSocket(new ChildStream(child))
    ws.once('error', () => {})
    ws.once('close', () => {
      if (settled) return
      exited.then((code) => settle(new SupError('SUP_ERR_HOST_UNREACHABLE', { host: label, reason: reason(code) })))
    })
    ws.once('open', () => {
      const conn = new Connection(ws)
      conn.request('hello', { protocol: PROTOCOL_VERSION, client: 'sup-cli' }).then(
        () => settle(null, conn),
        (err) => settle(err instanceof SupError && err.code !== 'SUP_ERR_IPC_CONNECTION_LOST' ? err : new SupError('SUP_ERR_HOST_UNREACHABLE', { host: label, reason: reason(child.exitCode) }))
      )
    })
  })
}
