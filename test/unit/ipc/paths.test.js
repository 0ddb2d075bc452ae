// @ts-check
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { resolvePaths } from '../../../ipc/paths.js'

const cases = [
  { name: 'SUP_HOME elsewhere: design §8 names', env: { HOME: '/h', SUP_HOME: '/h/.sup' }, home: '/h/.sup', layout: 'sup', dump: 'dump.json', pid: 'daemon.pid' },
  { name: 'no SUP_HOME, no PM2_HOME: ~/.sup', env: { HOME: '/h' }, layout: 'sup', dump: 'dump.json', pid: 'daemon.pid' },
  { name: 'only PM2_HOME: a sup home inside it, sup names', env: { HOME: '/h', PM2_HOME: '/p' }, home: '/p/sup', layout: 'sup', dump: 'dump.json', pid: 'daemon.pid' },
  { name: 'SUP_HOME is ~/.pm2: PM2 names', env: { HOME: '/h', SUP_HOME: '/h/.pm2' }, home: '/h/.pm2', layout: 'pm2', dump: 'dump.pm2', pid: 'pm2.pid' },
  { name: 'SUP_HOME is $PM2_HOME: PM2 names', env: { HOME: '/h', SUP_HOME: '/p/', PM2_HOME: '/p' }, home: '/p', layout: 'pm2', dump: 'dump.pm2', pid: 'pm2.pid' },
  { name: 'SUP_HOME is ~/.pm2 but PM2_HOME is elsewhere: not PM2\'s home', env: { HOME: '/h', SUP_HOME: '/h/.pm2', PM2_HOME: '/p' }, home: '/h/.pm2', layout: 'sup', dump: 'dump.json', pid: 'daemon.pid' }
]

for (const c of cases) {
  test(`resolvePaths: ${c.name}`, () => {
    const paths = resolvePaths(c.env)
    if (c.home) assert.equal(paths.home, c.home)
    assert.equal(paths.layout, c.layout)
    assert.equal(paths.dump, `${paths.home}/${c.dump}`)
    assert.equal(paths.pidFile, `${paths.home}/${c.pid}`)
    assert.equal(paths.state, `${paths.home}/state.json`, 'the daemon state has no PM2 counterpart: one name')
  })
}
