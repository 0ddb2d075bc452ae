// @ts-check
// Fault: the disk under SUP_HOME fills up (logs and state on a 512 KiB tmpfs). What must hold:
// the daemon answers, the app keeps running (its writes never block on a full disk), the rows
// say which log cannot be written and how many lines were dropped, and once space is freed
// the logs and the state file are written again. Needs root (mount); CI runs as root.
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { waitFor } from '../helpers/wait.js'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

/** @param {string} dir */
function mountTmpfs (dir) {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=512k,mode=0700', 'tmpfs', dir], { stdio: 'pipe' })
    return true
  } catch (err) {
    return /** @type {Error} */ (err).message
  }
}

test('a full disk under SUP_HOME: lines are dropped and counted, nothing blocks, all resumes when space is back', async (t) => {
  const home = useSupHome(t)
  const mounted = mountTmpfs(home.home)
  if (mounted !== true) return t.skip(`cannot mount a tmpfs here (needs root): ${mounted}`)
  home.beforeRemove(() => {
    try { execFileSync('umount', ['-l', home.home], { stdio: 'pipe' }) } catch {}
  })

  const started = await home.sup(['start', join(APPS, 'chatty.js'), '--name', 'loud', '-x'], { env: { LINES: '20', SIZE: '200' } })
  assert.equal(started.code, 0, started.stderr)
  // 4 KiB every 10 ms fills 512 KiB in about a second and a half.
  const [full] = await waitForRows(home, (rows) => rows[0]?.log_error?.code === 'SUP_ERR_LOG_DISK_FULL' && rows[0].log_dropped_lines > 0, { what: 'the disk-full error on the row', timeout: 30_000 })
  assert.equal(full.status, 'online')
  const pid = full.pid

  // The app is not blocked: it keeps writing (its line numbers keep growing in what we drop),
  // the daemon answers, and `sup ls` (the human table) works.
  const ping = await home.sup(['ping'])
  assert.equal(ping.code, 0, ping.stderr)
  const table = await home.sup(['ls'])
  assert.equal(table.code, 0, table.stderr)
  const later = await waitForRows(home, (rows) => rows[0].log_dropped_lines > full.log_dropped_lines + 100, { what: 'more lines dropped: the app runs on' })
  assert.equal(later[0].pid, pid, 'the same process, never restarted for a full disk')

  // Free the space: flush truncates the app's logs. Writing resumes, the error clears.
  const flushed = await home.sup(['flush', 'loud'])
  assert.equal(flushed.code, 0, flushed.stderr)
  await waitForRows(home, (rows) => rows[0].log_error === null, { what: 'the log error to clear', timeout: 30_000 })
  await waitFor(() => /line \d+/.test(readFileSync(join(home.paths.logs, 'loud-out.log'), 'utf8')), { what: 'lines in the log again' })
  // And the daemon's own state file was written (stop the app so the disk stays free).
  assert.equal((await home.sup(['stop', 'loud'])).code, 0)
  await home.sup(['flush', 'loud'])
  await waitFor(() => {
    try {
      const state = JSON.parse(readFileSync(home.paths.state, 'utf8'))
      return state.apps.some((/** @type {any} */ a) => a.config.name === 'loud' && a.workers.every((/** @type {any} */ w) => w.run === false))
    } catch { return false }
  }, { what: 'state.json to record the stop' }).catch((err) => {
    let state = ''
    try { state = readFileSync(home.paths.state, 'utf8').slice(0, 600) } catch (e) { state = String(e) }
    throw new Error(`${err.message}; state.json: ${state}; daemon.log: ${readFileSync(home.paths.daemonLog, 'utf8').slice(-1500)}`)
  })
})
