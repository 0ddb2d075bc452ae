// @ts-check
// `sup --host a,b <verb …>`: the verb run against each host's daemon over ssh. A listing is
// merged into one table with a host column; actions go one host at a time, and reload and
// restart stop at the first host that fails (a rolling action: the hosts after it are not
// touched); read-only verbs ask every host at once. Each host's outcome is its own line, and
// the exit code is 1 when any host failed.
import { SupError } from '../../ipc/errors.js'
import { escapeControls } from '../../ipc/terminal-text.js'
import { hostLabels, resolveHosts } from './hosts.js'
import { connectHost } from './ssh-connect.js'

/** Verbs that replace workers: one host at a time, stop at the first failure. */
const ROLLING = new Set(['reload', 'restart'])
/** Verbs that change a host: one host at a time, every host. */
const EACH = new Set(['stop', 'delete', 'del', 'reset', 'scale', 'flush', 'signal', 'sendSignal', 'save', 'dump', 'resurrect', 'reloadLogs', 'reload-logs'])
/** Verbs that only read: every host at once. */
const READ = new Set(['describe', 'show', 'info', 'logs', 'events', 'pid', 'id', 'ping'])
const LIST = new Set(['ls', 'list', 'status', 'l', 'ps'])

/**
 * @typedef {(argv: string[], io: import('../cli.js').CliIo) => Promise<number>} Main
 * @typedef {{ label: string, code: number }} HostOutcome
 */

/**
 * @param {string[]} words the --host values
 * @param {string[]} argv the command without --host
 * @param {import('../cli.js').CliIo} io
 * @param {Main} main the CLI, run once per host
 * @returns {Promise<number>}
 */
export async function runOnHosts (words, argv, io, main) {
  const verb = argv.find((w) => !w.startsWith('-'))
  if (verb === undefined || argv.includes('-h') || argv.includes('--help')) return main(argv, io)
  const hosts = resolveHosts(words, io.env)
  const labels = hostLabels(hosts)
  const json = argv.includes('--json')
  await refuseLocalInputs(verb, argv)
  const targets = hosts.map((host, i) => ({ label: labels[i], via: () => connectHost(host, labels[i], io.env) }))
  // One screen for every host: monit follows each host's daemon itself (client/commands/monit.js).
  if (verb === 'monit') return main(argv, { ...io, fleet: targets })
  if (LIST.has(verb)) {
    const { listHosts } = await import('./list.js')
    return listHosts(targets, argv, io)
  }
  const width = Math.max(...labels.map((l) => l.length))
  const prefixed = (/** @type {string} */ label) => hostIo(io, label, width, json)
  if (READ.has(verb)) {
    const follow = (verb === 'logs' && !argv.includes('--nostream')) || (verb === 'events' && (argv.includes('-f') || argv.includes('--follow')))
    // Followed streams print as they come; the rest host by host, so a host's lines stay together.
    const outcomes = await Promise.all(targets.map(async (t) => {
      const buffer = follow ? null : bufferIo(prefixed(t.label))
      const code = await main(argv, { ...(buffer ?? prefixed(t.label)), via: t.via })
      return { label: t.label, code, flush: buffer ? buffer.flush : () => {} }
    }))
    for (const o of outcomes) o.flush()
    return summarise(outcomes, [], verb, io)
  }
  if (!ROLLING.has(verb) && !EACH.has(verb)) {
    throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `sup ${verb} --host`, reason: 'with --host sup runs ls, monit, describe, logs, events, pid, id, ping, reload, restart, stop, delete, reset, scale, flush, signal, save, resurrect and reloadLogs (docs/cli.md#--host)' })
  }
  /** @type {HostOutcome[]} */
  const outcomes = []
  for (const [i, t] of targets.entries()) {
    const code = await main(argv, { ...prefixed(t.label), via: t.via })
    outcomes.push({ label: t.label, code })
    if (code !== 0 && ROLLING.has(verb)) {
      const untouched = targets.slice(i + 1).map((u) => u.label)
      for (const label of untouched) prefixed(label).out(json ? '{"touched":false}' : 'not touched')
      return summarise(outcomes, untouched, verb, io)
    }
  }
  return summarise(outcomes, [], verb, io)
}

/**
 * What a host cannot be sent: a config file or this shell's environment describe this
 * machine (its paths, its variables), not the host's.
 * @param {string} verb
 * @param {string[]} argv
 */
async function refuseLocalInputs (verb, argv) {
  const { isConfigFile } = await import('../config/load-file.js')
  const file = argv.find((w) => w !== verb && !w.startsWith('-') && isConfigFile(w))
  if (file) throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `a config file (${file}) with --host`, reason: 'its paths and environment are this machine\'s; name the apps, or run sup on the host' })
  const local = argv.find((w) => ['-a', '--update-env', '--env', '--node-args', '--interpreter-args', '-n', '--name'].includes(w.split('=')[0]))
  if (local) throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `${local} with --host`, reason: 'it carries this machine\'s environment or settings; run sup on the host for it' })
}

/**
 * The host's lines: `web1 | …` for people; for --json, each JSON line gets a `host` field
 * (an object's own, or each element's of an array).
 * @param {import('../cli.js').CliIo} io
 * @param {string} label
 * @param {number} width
 * @param {boolean} json
 * @returns {import('../cli.js').CliIo}
 */
export function hostIo (io, label, width, json) {
  const shown = escapeControls(label)
  const lead = `${shown}${' '.repeat(width - label.length)} | `
  const prefix = (/** @type {string} */ text) => text.split('\n').map((line) => lead + line).join('\n')
  const out = json ? (/** @type {string} */ text) => io.out(withHost(text, label)) : (/** @type {string} */ text) => io.out(prefix(text))
  return {
    ...io,
    earlyStart: null,
    out,
    // The host's error line (`sup: …`): in --json, a line of its own on stdout too, so a
    // program reading stdout sees every host.
    err: (text) => {
      if (json && text.startsWith('sup: ')) io.out(JSON.stringify({ host: label, error: text.slice(5) }))
      io.err(prefix(text))
    },
    warn: (text) => (io.warn ?? io.err)(prefix(text))
  }
}

/**
 * @param {string} text a line (or lines) of JSON
 * @param {string} label
 */
function withHost (text, label) {
  const tag = (/** @type {unknown} */ v) => v !== null && typeof v === 'object' && !Array.isArray(v) ? { host: label, ...v } : v
  const tagged = (/** @type {string} */ json) => {
    const value = JSON.parse(json)
    return JSON.stringify(Array.isArray(value) ? value.map(tag) : tag(value))
  }
  // One document (describe's is indented over many lines), else JSON lines (logs, events).
  try {
    return tagged(text)
  } catch {
    return text.split('\n').map((line) => {
      try {
        return tagged(line)
      } catch {
        return line
      }
    }).join('\n')
  }
}

/**
 * Hold a host's lines until it is done.
 * @param {import('../cli.js').CliIo} io
 */
function bufferIo (io) {
  /** @type {Array<() => void>} */
  const held = []
  return {
    ...io,
    out: (/** @type {string} */ text) => { held.push(() => io.out(text)) },
    err: (/** @type {string} */ text) => { held.push(() => io.err(text)) },
    warn: (/** @type {string} */ text) => { held.push(() => (io.warn ?? io.err)(text)) },
    flush: () => { for (const write of held.splice(0)) write() }
  }
}

/**
 * The last line: which hosts failed and which were not touched; 1 when any failed.
 * @param {HostOutcome[]} outcomes
 * @param {string[]} untouched
 * @param {string} verb
 * @param {import('../cli.js').CliIo} io
 */
export function summarise (outcomes, untouched, verb, io) {
  const failed = outcomes.filter((o) => o.code !== 0).map((o) => o.label)
  if (failed.length === 0) return 0
  const error = untouched.length > 0
    ? new SupError('SUP_ERR_HOST_ROLLOUT_STOPPED', { verb, host: failed[0], done: outcomes.length - 1, untouched: untouched.join(', ') })
    : new SupError('SUP_ERR_HOST_FAILED', { failed: failed.length, total: outcomes.length + untouched.length, hosts: failed.join(', ') })
  io.err(`sup: ${escapeControls(error.message)}`)
  return 1
}
