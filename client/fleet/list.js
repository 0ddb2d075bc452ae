// @ts-check
// `sup --host a,b ls`: every host asked at once, one table with a host column (or one JSON
// array whose rows carry `host`); a host that does not answer in time is a row with its error.
import { SupError } from '../../ipc/errors.js'
import { escapeControls, escapeDeep } from '../../ipc/terminal-text.js'
import { renderWorkers } from '../format.js'
import { parseSort, sortRows } from '../commands/ls.js'
import { summarise } from './run.js'

/** How long a host may take to list, once connected (the daemon answers from its cache). */
const LIST_TIMEOUT_MS = 15_000

/**
 * @param {Array<{ label: string, via: () => Promise<import('../../ipc/transport.js').Connection> }>} targets
 * @param {string[]} argv
 * @param {import('../cli.js').CliIo} io
 */
export async function listHosts (targets, argv, io) {
  const unsupported = argv.find((w) => w.startsWith('-') && !['--json', '--sort', '-s', '--silent', '--no-color'].includes(w.split('=')[0]))
  if (unsupported) throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `sup ls ${unsupported} --host`, reason: 'with --host, ls takes --json and --sort' })
  const sortAt = argv.indexOf('--sort')
  const sortSpec = sortAt === -1 ? argv.find((w) => w.startsWith('--sort='))?.slice(7) : argv[sortAt + 1]
  const order = sortSpec === undefined ? null : parseSort(sortSpec)
  const answers = await Promise.all(targets.map((t) => listOne(t)))
  const rows = answers.flatMap((a) => 'rows' in a ? (order ? sortRows(a.rows, order) : a.rows).map((row) => ({ host: a.label, ...row })) : [])
  const failures = answers.flatMap((a) => 'error' in a ? [a] : [])
  if (argv.includes('--json')) {
    io.out(JSON.stringify([...rows, ...failures.map((f) => ({ host: f.label, error: { code: f.error.code, message: f.error.message } }))]))
  } else {
    const shown = escapeDeep(rows)
    io.out(shown.length > 0 || failures.length > 0 ? renderWorkers(shown, { hosts: failures.map((f) => f.label) }) : renderWorkers([]))
    // The host's messages mostly name it already (SUP_ERR_HOST_*); others get its name first.
    for (const f of failures) io.out(escapeControls(f.error.message.startsWith(f.label) ? f.error.message : `${f.label}: ${f.error.message}`))
  }
  return summarise(answers.map((a) => ({ label: a.label, code: 'error' in a ? 1 : 0 })), [], 'ls', io)
}

/**
 * @param {{ label: string, via: () => Promise<import('../../ipc/transport.js').Connection> }} target
 * @returns {Promise<{ label: string, rows: import('../../ipc/methods.js').WorkerRow[] } | { label: string, error: SupError }>}
 */
async function listOne ({ label, via }) {
  try {
    const conn = await via()
    try {
      /** @type {NodeJS.Timeout | undefined} */
      let timer
      const late = new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new SupError('SUP_ERR_HOST_TIMEOUT', { host: label, seconds: LIST_TIMEOUT_MS / 1000 })), LIST_TIMEOUT_MS)
      })
      const rows = await Promise.race([conn.request('app.list'), late]).finally(() => clearTimeout(timer))
      return { label, rows }
    } finally {
      conn.leave()
    }
  } catch (err) {
    return { label, error: err instanceof SupError ? err : new SupError('SUP_ERR_HOST_UNREACHABLE', { host: label, reason: /** @type {Error} */ (err).message }) }
  }
}
