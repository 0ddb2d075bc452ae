// @ts-check
// Targets the PM2 ways (docs/cli.md, "Targets"): script file, several at once, regex,
// namespace, all.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome } from '../helpers/sup.js'

const SCRIPT = join(APPS, 'signal-logger.js')

/**
 * Status per app name, in id order.
 * @param {ReturnType<typeof useSupHome>} home
 */
async function statuses (home) {
  return Object.fromEntries((await home.ls()).map((r) => [r.name, r.status]))
}

test('a config file\'s namespace is a target, and so are a script file, several names and a regex', async (t) => {
  const home = useSupHome(t)
  const dir = mkdtempSync(join(tmpdir(), 'sup-targets-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'ecosystem.config.json'), JSON.stringify({
    apps: [
      { name: 'api-1', script: SCRIPT, namespace: 'web' },
      { name: 'api-2', script: SCRIPT, namespace: 'web' },
      { name: 'mailer', script: join(APPS, 'stubborn.js'), namespace: 'jobs' }
    ]
  }))
  const started = await home.sup(['start', join(dir, 'ecosystem.config.json')])
  assert.equal(started.code, 0, started.stderr)
  const described = JSON.parse((await home.sup(['describe', 'api-1', '--json'])).stdout)
  assert.equal(described.config.namespace, 'web')

  // A namespace names its apps.
  const byNamespace = await home.sup(['stop', 'web'])
  assert.equal(byNamespace.code, 0, byNamespace.stderr)
  assert.deepEqual(await statuses(home), { 'api-1': 'stopped', 'api-2': 'stopped', mailer: 'online' })

  // A script file, relative to the caller's cwd, names the apps that run it.
  const byScript = await home.sup(['restart', 'signal-logger.js'], { cwd: APPS })
  assert.equal(byScript.code, 0, byScript.stderr)
  assert.deepEqual(await statuses(home), { 'api-1': 'online', 'api-2': 'online', mailer: 'online' })

  // A regex matches names; the CLI says what it did.
  const byRegex = await home.sup(['stop', '/^api-[2-9]$/'])
  assert.equal(byRegex.code, 0, byRegex.stderr)
  assert.deepEqual(await statuses(home), { 'api-1': 'online', 'api-2': 'stopped', mailer: 'online' })

  // Several at once: an id and a name.
  const ids = Object.fromEntries((await home.ls()).map((r) => [r.name, r.id]))
  const several = await home.sup(['stop', String(ids['api-1']), 'mailer'])
  assert.equal(several.code, 0, several.stderr)
  assert.deepEqual(await statuses(home), { 'api-1': 'stopped', 'api-2': 'stopped', mailer: 'stopped' })

  // A regex that matches nothing, a bad regex, and an unknown target among known ones:
  // exit 1, one line, nothing done.
  const restartAll = await home.sup(['restart', 'api-1', '/^nope/'])
  assert.equal(restartAll.code, 1)
  assert.equal(restartAll.stderr, 'sup: no app name matches /^nope/ (sup ls lists apps)\n')
  const bad = await home.sup(['stop', '/(/'])
  assert.equal(bad.code, 1)
  assert.match(bad.stderr, /^sup: invalid target \/\(\/: .+ \(a regex target is \/pattern\/, e\.g\. \/\^api-\/\)\n$/)
  const unknown = await home.sup(['restart', 'api-1', 'nope.js'], { cwd: APPS })
  assert.equal(unknown.code, 1)
  assert.equal(unknown.stderr, 'sup: app "nope.js" not found (sup ls lists apps)\n')
  assert.deepEqual(await statuses(home), { 'api-1': 'stopped', 'api-2': 'stopped', mailer: 'stopped' })

  // delete by regex, then by namespace.
  assert.equal((await home.sup(['delete', '/^api/'])).code, 0)
  assert.equal((await home.sup(['delete', 'jobs'])).code, 0)
  assert.deepEqual(await home.ls(), [])
})

test('stop all, restart all, reload all and delete all with no apps exit 1, as in PM2; reset all does not', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['ping'])).code, 0)
  for (const verb of ['stop', 'restart', 'reload', 'delete']) {
    const result = await home.sup([verb, 'all'])
    assert.equal(result.code, 1, verb)
    assert.equal(result.stderr, 'sup: there are no apps, so "all" names nothing (sup start adds one)\n', verb)
  }
  assert.equal((await home.sup(['reset', 'all'])).code, 0)
})

test('an app named with digits is reached by its name before any id', async (t) => {
  const home = useSupHome(t)
  assert.equal((await home.sup(['start', SCRIPT, '--name', 'first'])).code, 0)
  assert.equal((await home.sup(['start', SCRIPT, '--name', '0'])).code, 0)
  const result = await home.sup(['stop', '0'])
  assert.equal(result.code, 0, result.stderr)
  assert.deepEqual(await statuses(home), { first: 'online', 0: 'stopped' })
})
