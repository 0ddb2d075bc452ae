// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { readSavedListen } from '../../../../client/startup/saved-listen.js'
import { defaultServiceName, escapeValue, listenStream, quoteAssignment, quoteExecArg, renderSocketUnit, renderSystemdUnit } from '../../../../client/startup/systemd-unit.js'

const options = { user: 'alice', supHome: '/home/alice/.sup', node: '/usr/bin/node', supBin: '/opt/sup/bin/sup.js', path: '/usr/bin:/bin', version: '1.2.3' }

/**
 * The unit as { section: { key: [values] } }, comments left out.
 * @param {string} text
 */
function parseUnit (text) {
  /** @type {Record<string, Record<string, string[]>>} */
  const sections = {}
  let current = ''
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const header = /^\[(\w+)\]$/.exec(line)
    if (header) {
      current = header[1]
      sections[current] = {}
      continue
    }
    const at = line.indexOf('=')
    const key = line.slice(0, at)
    ;(sections[current][key] ??= []).push(line.slice(at + 1))
  }
  return sections
}

describe('renderSystemdUnit', () => {
  test('a forking service that pings up the daemon, then resurrects', () => {
    const unit = parseUnit(renderSystemdUnit(options))
    assert.deepEqual(unit, {
      Unit: {
        Description: ['sup process supervisor for alice (SUP_HOME /home/alice/.sup)'],
        After: ['network-online.target'],
        Wants: ['network-online.target']
      },
      Service: {
        Type: ['forking'],
        User: ['alice'],
        Environment: ['"SUP_HOME=/home/alice/.sup"', '"PATH=/usr/bin:/bin"'],
        PIDFile: ['/home/alice/.sup/daemon.pid'],
        ExecStart: ['/usr/bin/node /opt/sup/bin/sup.js ping'],
        ExecStartPost: ['-/usr/bin/node /opt/sup/bin/sup.js resurrect'],
        KillMode: ['mixed'],
        TimeoutStopSec: ['120'],
        Restart: ['on-failure'],
        RestartSec: ['2'],
        LimitNOFILE: ['infinity']
      },
      Install: { WantedBy: ['multi-user.target'] }
    })
  })

  test('the pid file given (pm2.pid where SUP_HOME is PM2\'s home) is the one systemd reads', () => {
    const unit = parseUnit(renderSystemdUnit({ ...options, supHome: '/home/alice/.pm2', pidFile: '/home/alice/.pm2/pm2.pid' }))
    assert.deepEqual(unit.Service.PIDFile, ['/home/alice/.pm2/pm2.pid'])
  })

  test('says who wrote it and ends with a newline', () => {
    const text = renderSystemdUnit(options)
    assert.match(text, /^# Written by "sup startup" \(sup 1\.2\.3\); "sup unstartup" removes it\.\n/)
    assert.ok(text.endsWith('\n'))
  })

  test('paths with spaces, % and $ survive systemd\'s parsing', () => {
    const unit = parseUnit(renderSystemdUnit({ ...options, supHome: '/home/a b/100%', supBin: '/opt/my sup/$x/bin/sup.js' }))
    assert.deepEqual(unit.Service.Environment[0], '"SUP_HOME=/home/a b/100%%"')
    assert.deepEqual(unit.Service.PIDFile, ['/home/a b/100%%/daemon.pid'])
    assert.deepEqual(unit.Service.ExecStart, ['/usr/bin/node "/opt/my sup/$$x/bin/sup.js" ping'])
  })
})

describe('quoting', () => {
  /** @type {Array<[string, string]>} */
  const exec = [
    ['/usr/bin/node', '/usr/bin/node'],
    ['/a b', '"/a b"'],
    ['100%', '100%%'],
    ['$HOME', '$$HOME'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    ['a;b', '"a;b"'],
    ['', '""']
  ]
  for (const [input, expected] of exec) {
    test(`ExecStart word ${JSON.stringify(input)} -> ${expected}`, () => assert.equal(quoteExecArg(input), expected))
  }

  test('Environment assignments are quoted whole, % doubled, quotes escaped', () => {
    assert.equal(quoteAssignment('PATH', '/a b:/c%"'), '"PATH=/a b:/c%%\\""')
  })

  test('escapeValue doubles %', () => assert.equal(escapeValue('50% of %h'), '50%% of %%h'))
})

describe('defaultServiceName', () => {
  for (const [user, name] of [['alice', 'sup-alice'], ['svc.web-1', 'sup-svc.web-1'], ['DOMAIN\\bob smith', 'sup-DOMAIN\\bob_smith'], ['ålice', 'sup-_lice']]) {
    test(`${user} -> ${name}`, () => assert.equal(defaultServiceName(user), name))
  }
})

describe('socket activation: the .socket unit for saved apps with listen', () => {
  test('the service requires the socket unit and starts after it', () => {
    const unit = parseUnit(renderSystemdUnit({ ...options, socket: 'sup-alice.socket' }))
    assert.deepEqual(unit.Unit.Requires, ['sup-alice.socket'])
    assert.deepEqual(unit.Unit.After, ['network-online.target', 'sup-alice.socket'])
  })

  test('one ListenStream= per entry, one FileDescriptorName=, the service it feeds', () => {
    const unit = parseUnit(renderSocketUnit({ user: 'alice', service: 'sup-alice', listen: ['127.0.0.1:8080', '3000', 'unix:/run/app.sock'], version: '1.2.3' }))
    assert.deepEqual(unit, {
      Unit: { Description: ['sockets of the sup apps of alice'] },
      Socket: {
        ListenStream: ['127.0.0.1:8080', '3000', '/run/app.sock'],
        FileDescriptorName: ['sup-alice'],
        SocketUser: ['alice'],
        SocketMode: ['0600'],
        Service: ['sup-alice.service']
      },
      Install: { WantedBy: ['sockets.target'] }
    })
  })

  /** @type {Array<[string, string]>} */
  const streams = [['3000', '3000'], ['127.0.0.1:80', '127.0.0.1:80'], ['localhost:80', '127.0.0.1:80'], ['[::1]:80', '[::1]:80'], ['unix:/run/a 100%.sock', '/run/a 100%.sock']]
  for (const [entry, expected] of streams) {
    test(`listen ${entry} -> ListenStream=${expected}`, () => assert.equal(listenStream(entry), expected))
  }

  test('readSavedListen: the fork-mode apps\' entries of dump.json, once each; nothing from a missing or broken dump', () => {
    const dump = { apps: [{ config: { exec_mode: 'fork', listen: ['3000', '127.0.0.1:8080'] } }, { config: { exec_mode: 'fork', listen: ['3000'] } }, { config: { exec_mode: 'cluster', listen: [] } }, { config: { exec_mode: 'fork', listen: [] } }] }
    assert.deepEqual(readSavedListen('/h/dump.json', (file) => { assert.equal(file, '/h/dump.json'); return JSON.stringify(dump) }), ['3000', '127.0.0.1:8080'])
    assert.deepEqual(readSavedListen('/h/dump.json', () => '{not json'), [])
    assert.deepEqual(readSavedListen('/h/dump.json', () => { throw new Error('ENOENT') }), [])
    assert.deepEqual(readSavedListen('/h/dump.json', () => '{"apps":[null,{"config":{"exec_mode":"fork","listen":"3000"}}]}'), [])
  })
})
