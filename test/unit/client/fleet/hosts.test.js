// @ts-check
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, test } from 'node:test'
import { hostLabels, hostsFile, parseHost, resolveHosts, takeHostFlag } from '../../../../client/fleet/hosts.js'
import { sshCommand } from '../../../../client/fleet/ssh-connect.js'

describe('takeHostFlag', () => {
  for (const [argv, hosts, rest] of /** @type {Array<[string[], string[] | null, string[]]>} */ ([
    [['ls'], null, ['ls']],
    [['--host', 'web1', 'ls'], ['web1'], ['ls']],
    [['ls', '--json', '--host=web1,deploy@web2'], ['web1', 'deploy@web2'], ['ls', '--json']],
    [['--host', 'a', 'reload', 'api', '--host', 'b'], ['a', 'b'], ['reload', 'api']],
    [['-s', '--host', 'a', 'ls'], ['a'], ['-s', 'ls']],
    // sup metrics --host is the endpoint's address, not a machine.
    [['metrics', '--port', '9209', '--host', '0.0.0.0'], null, ['metrics', '--port', '9209', '--host', '0.0.0.0']],
    // After --, words belong to the script.
    [['start', 'app.js', '--', '--host', 'x'], null, ['start', 'app.js', '--', '--host', 'x']]
  ])) {
    test(argv.join(' '), () => {
      assert.deepEqual(takeHostFlag(argv), { hosts, argv: rest })
    })
  }
  test('--host without a value is a usage error', () => {
    assert.throws(() => takeHostFlag(['ls', '--host']), { code: 'SUP_ERR_CLI_USAGE' })
  })
})

describe('parseHost', () => {
  for (const [spec, destination, home] of [
    ['web1', 'web1', null],
    ['deploy@web1.example.com', 'deploy@web1.example.com', null],
    ['web1:/srv/sup', 'web1', '/srv/sup'],
    ['deploy@web1:~/.sup-api', 'deploy@web1', '~/.sup-api']
  ]) {
    test(spec, () => assert.deepEqual(parseHost(spec), { spec, destination, home }))
  }
  for (const spec of ['-oProxyCommand=touch /tmp/x', 'web1;rm', 'a b', 'web1:relative', 'web1:/srv/$(id)', '']) {
    test(`refuses ${JSON.stringify(spec)}`, () => assert.throws(() => parseHost(spec), { code: 'SUP_ERR_HOST_INVALID' }))
  }
})

test('hostLabels: the destination, or the whole spec when two hosts share it', () => {
  assert.deepEqual(hostLabels(['web1', 'web2:/a', 'web2:/b'].map(parseHost)), ['web1', 'web2:/a', 'web2:/b'])
  assert.deepEqual(hostLabels(['web1:/a', 'web2'].map(parseHost)), ['web1', 'web2'])
})

test('resolveHosts: all is the hosts file, each host once', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'sup-hosts-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const env = { XDG_CONFIG_HOME: dir }
  assert.equal(hostsFile(env), join(dir, 'sup', 'hosts'))
  assert.throws(() => resolveHosts(['all'], env), { code: 'SUP_ERR_HOST_NONE' })
  const file = join(dir, 'hosts')
  writeFileSync(file, '# the fleet\nweb1\n\ndeploy@web2:/srv/sup  # api\n')
  assert.deepEqual(resolveHosts(['all', 'web1', 'web3'], { SUP_HOSTS_FILE: file }).map((h) => h.spec), ['web1', 'deploy@web2:/srv/sup', 'web3'])
})

test('sshCommand: the user\'s ssh words first, batch mode and timeouts, -- before the destination, the home quoted', () => {
  const { file, args, timeoutS } = sshCommand(parseHost('deploy@web1:/srv/my sup'), { SUP_SSH_COMMAND: 'ssh -F /tmp/cfg', SUP_REMOTE_SUP: '/usr/bin/node /opt/sup/bin/sup.cjs', SUP_HOST_TIMEOUT: '3' })
  assert.equal(file, 'ssh')
  assert.equal(timeoutS, 3)
  assert.deepEqual(args, ['-F', '/tmp/cfg', '-T', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', '-o', 'ServerAliveInterval=5', '-o', 'ServerAliveCountMax=3', '--', 'deploy@web1', "/usr/bin/node /opt/sup/bin/sup.cjs dial-stdio --home '/srv/my sup'"])
  assert.equal(sshCommand(parseHost('web1'), {}).args.at(-1), 'sup dial-stdio')
  assert.throws(() => sshCommand(parseHost('web1'), { SUP_HOST_TIMEOUT: '0' }), { code: 'SUP_ERR_CLI_USAGE' })
})
