// @ts-check
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { envFor, resolveRunAs } from '../../../../daemon/worker/run-as.js'

const passwd = 'root:x:0:0:root:/root:/bin/bash\n# a comment\nalice:x:1000:1000:Alice:/home/alice:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n'
const group = 'root:x:0:\nalice:x:1000:\nstaff:x:50:alice\nnogroup:x:65534:\n'
/** @param {number} euid @param {number} [egid] */
const accounts = (euid, egid = euid) => ({ passwd: () => passwd, group: () => group, euid, egid })
/** @param {Partial<{ uid: string | number | null, gid: string | number | null }>} ids */
const app = (ids) => ({ name: 'api', uid: null, gid: null, ...ids })

test('who a root daemon runs an app as', () => {
  const cases = /** @type {const} */ ([
    [{}, null],
    [{ uid: 'alice' }, { uid: 1000, gid: 1000, user: 'alice', home: '/home/alice' }],
    [{ uid: 'alice', gid: 'staff' }, { uid: 1000, gid: 50, user: 'alice', home: '/home/alice' }],
    [{ uid: 1000 }, { uid: 1000, gid: 1000, user: 'alice', home: '/home/alice' }],
    [{ uid: 4242 }, { uid: 4242, gid: 0, user: null, home: null }],
    [{ gid: 'nogroup' }, { uid: 0, gid: 65534, user: null, home: null }],
    [{ uid: 'root' }, null]
  ])
  for (const [ids, expected] of cases) assert.deepEqual(resolveRunAs(app(ids), accounts(0)), expected, JSON.stringify(ids))
})

test('a name the machine does not know is refused, naming the key', () => {
  assert.throws(() => resolveRunAs(app({ uid: 'mallory' }), accounts(0)), { code: 'SUP_ERR_APP_USER_UNKNOWN', details: { name: 'api', key: 'uid', value: 'mallory' } })
  assert.throws(() => resolveRunAs(app({ uid: 'alice', gid: 'wheel' }), accounts(0)), { code: 'SUP_ERR_APP_USER_UNKNOWN', details: { name: 'api', key: 'gid', value: 'wheel' } })
})

test('a daemon that is not root refuses another user, and takes its own', () => {
  assert.throws(() => resolveRunAs(app({ uid: 'nobody' }), accounts(1000)), { code: 'SUP_ERR_APP_USER_NOT_ROOT' })
  assert.throws(() => resolveRunAs(app({ uid: 'root' }), accounts(1000)), { code: 'SUP_ERR_APP_USER_NOT_ROOT' })
  assert.equal(resolveRunAs(app({ uid: 'alice' }), accounts(1000)), null)
})

test('the worker of another user gets its HOME, USER and LOGNAME, unless the app sets them', () => {
  const runAs = { uid: 1000, gid: 1000, user: 'alice', home: '/home/alice' }
  assert.deepEqual(envFor({ HOME: '/root', USER: 'root', PATH: '/bin' }, runAs, {}), { HOME: '/home/alice', USER: 'alice', LOGNAME: 'alice', PATH: '/bin' })
  assert.deepEqual(envFor({ HOME: '/srv/app' }, runAs, { HOME: '/srv/app' }), { HOME: '/srv/app', USER: 'alice', LOGNAME: 'alice' })
})
