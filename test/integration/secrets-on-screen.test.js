// @ts-check
// Issue 19 item 7: values of secret-looking keys are masked on screen unless --reveal;
// the files on disk keep them, 0600.
import assert from 'node:assert/strict'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, useSupHome, waitForRows } from '../helpers/sup.js'

test('describe, describe --json, env and set mask secret values; --reveal shows them; the files keep them', async (t) => {
  const home = useSupHome(t)
  const config = join(home.home, 'app.config.json')
  writeFileSync(config, JSON.stringify({ apps: [{ name: 'api', script: join(APPS, 'print-env.js'), env: { API_KEY: 'k-s3cr3t', PORT_NAME: 'plain-value' } }] }))
  assert.equal((await home.sup(['start', config])).code, 0)
  await waitForRows(home, (rows) => rows.length === 1 && rows[0].status === 'online')

  const json = JSON.parse((await home.sup(['describe', 'api', '--json'])).stdout)
  assert.equal(json.config.env.API_KEY, '****')
  assert.equal(json.config.env.PORT_NAME, 'plain-value')
  assert.equal(JSON.parse((await home.sup(['describe', 'api', '--json', '--reveal'])).stdout).config.env.API_KEY, 'k-s3cr3t')
  assert.doesNotMatch((await home.sup(['describe', 'api'])).stdout, /k-s3cr3t/)

  const env = await home.sup(['env', '0'])
  assert.equal(env.code, 0, env.stderr)
  assert.match(env.stdout, /^API_KEY: \*\*\*\*$/m)
  assert.match(env.stdout, /^PORT_NAME: plain-value$/m)
  assert.doesNotMatch(env.stdout, /k-s3cr3t/)
  assert.match((await home.sup(['env', '0', '--reveal'])).stdout, /^API_KEY: k-s3cr3t$/m)
  assert.doesNotMatch((await home.sup(['env', '0', '--json'])).stdout, /k-s3cr3t/)
  // Configurable: the words are the CLI's SUP_SECRET_KEYS.
  assert.match((await home.sup(['env', '0'], { env: { SUP_SECRET_KEYS: 'PORT_NAME' } })).stdout, /^PORT_NAME: \*\*\*\*$/m)

  const set = await home.sup(['set', 'api.DB_PASSWORD', 'hunter2'])
  assert.equal(set.code, 0, set.stderr)
  assert.match(set.stdout, /^api\.DB_PASSWORD = \*\*\*\*$/m)
  assert.doesNotMatch(set.stdout, /hunter2/)
  assert.match((await home.sup(['set', 'api.DB_PASSWORD', 'hunter2', '--reveal'])).stdout, /^api\.DB_PASSWORD = hunter2$/m)
  assert.doesNotMatch((await home.sup(['get'])).stdout, /hunter2/)
  assert.equal((await home.sup(['get', 'api.DB_PASSWORD'])).stdout, 'hunter2\n', 'one value asked for by name is printed')

  assert.match(readFileSync(home.paths.settings, 'utf8'), /hunter2/)
  assert.equal(statSync(home.paths.settings).mode & 0o777, 0o600)
  assert.equal((await home.sup(['save'])).code, 0)
  assert.match(readFileSync(home.paths.dump, 'utf8'), /k-s3cr3t/)
  assert.equal(statSync(home.paths.dump).mode & 0o777, 0o600)
})
