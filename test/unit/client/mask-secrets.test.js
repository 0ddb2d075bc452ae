// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { MASK, maskSecrets, secretKeyTest } from '../../../client/mask-secrets.js'

test('the default words, case-insensitive, anywhere in the key', () => {
  const isSecret = secretKeyTest({})
  for (const key of ['API_KEY', 'aws_secret_access_key', 'GITHUB_TOKEN', 'DB_PASSWORD', 'PGPASSWD', 'GOOGLE_APPLICATION_CREDENTIALS', 'SecretName']) assert.equal(isSecret(key), true, key)
  for (const key of ['PATH', 'NODE_ENV', 'PORT', 'HOME', 'LOG_LEVEL']) assert.equal(isSecret(key), false, key)
})

test('SUP_SECRET_KEYS replaces the words; empty masks nothing', () => {
  const custom = secretKeyTest({ SUP_SECRET_KEYS: 'dsn, private' })
  assert.equal(custom('SENTRY_DSN'), true)
  assert.equal(custom('MY_PRIVATE_THING'), true)
  assert.equal(custom('API_KEY'), false)
  assert.equal(secretKeyTest({ SUP_SECRET_KEYS: '' })('API_KEY'), false)
  assert.equal(secretKeyTest({ SUP_SECRET_KEYS: 'a.b' })('axb'), false, 'words are literal, not patterns')
})

test('maskSecrets masks string values of secret keys at any depth, and nothing else', () => {
  const isSecret = secretKeyTest({})
  const input = { name: 'api', config: { env: { API_KEY: 'k', PORT: '3000' }, kill_timeout: 5000 }, settings: { DB_PASSWORD: 'p' }, workers: [{ env: { TOKEN: 't' } }] }
  assert.deepEqual(maskSecrets(input, isSecret), { name: 'api', config: { env: { API_KEY: MASK, PORT: '3000' }, kill_timeout: 5000 }, settings: { DB_PASSWORD: MASK }, workers: [{ env: { TOKEN: MASK } }] })
  assert.equal(input.config.env.API_KEY, 'k', 'the answer itself is left alone')
})
