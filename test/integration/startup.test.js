// @ts-check
// sup startup / unstartup through the real CLI. Units are written to a temp --unit-dir only:
// these tests never touch /etc/systemd/system nor run systemctl, even as root.
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs'
import { userInfo } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { APPS, SUP_BIN, freePort, useSupHome } from '../helpers/sup.js'

const me = userInfo().username

/** @returns {boolean} */
function hasSystemdAnalyze () {
  try {
    execFileSync('sh', ['-c', 'command -v systemd-analyze'], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

test('sup startup --print shows the unit for this SUP_HOME and writes nothing', async (t) => {
  const home = useSupHome(t)
  const result = await home.sup(['startup', '--print'])
  assert.equal(result.code, 0, result.stderr)
  const text = result.stdout
  assert.match(text, /^\[Service\]$/m)
  assert.match(text, /^Type=forking$/m)
  assert.match(text, new RegExp(`^User=${me}$`, 'm'))
  assert.match(text, new RegExp(`^Environment="SUP_HOME=${home.home}"$`, 'm'))
  assert.match(text, new RegExp(`^PIDFile=${home.paths.pidFile}$`, 'm'))
  assert.ok(text.includes(`ExecStart=${process.execPath} ${SUP_BIN} ping\n`), text)
  assert.ok(text.includes(`ExecStartPost=-${process.execPath} ${SUP_BIN} resurrect\n`), text)
  assert.match(text, /^KillMode=mixed$/m)
  assert.match(text, /^Delegate=yes$/m, 'the daemon may give each worker a cgroup of its own')
  assert.match(text, /^WantedBy=multi-user.target$/m)
  assert.equal(existsSync(home.paths.socket), false, 'no daemon was started')
})

test('sup startup --unit-dir writes a unit that systemd-analyze accepts; unstartup removes it', async (t) => {
  const home = useSupHome(t)
  const dir = join(home.home, 'units')
  const result = await home.sup(['startup', 'systemd', '--unit-dir', dir, '--json'])
  assert.equal(result.code, 0, result.stderr)
  const info = JSON.parse(result.stdout)
  const file = join(dir, `sup-${me}.service`)
  assert.equal(info.unit_file, file)
  assert.equal(info.written, true)
  assert.equal(info.enabled, false, 'a unit outside /etc/systemd/system is never enabled')
  assert.deepEqual(info.ran, [])
  assert.equal(readFileSync(file, 'utf8'), info.unit)
  assert.equal(statSync(file).mode & 0o777, 0o644)

  if (hasSystemdAnalyze()) {
    const verify = await new Promise((resolve) => {
      execFile('systemd-analyze', ['verify', file], { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, output: stdout + stderr }))
    })
    assert.deepEqual(verify, { code: 0, output: '' }, 'systemd-analyze verify has nothing to say about the unit')
  } else {
    t.diagnostic('systemd-analyze is not installed: only the unit text was checked')
  }

  const human = await home.sup(['startup', '--unit-dir', dir])
  assert.equal(human.code, 0, human.stderr)
  assert.match(human.stdout, new RegExp(`wrote ${file} \\(the daemon runs as ${me}, SUP_HOME ${home.home}\\)`))
  assert.match(human.stdout, /nothing was enabled; on the host that runs it: systemctl daemon-reload && systemctl enable sup-.*\.service/)

  const remove = await home.sup(['unstartup', '--unit-dir', dir])
  assert.equal(remove.code, 0, remove.stderr)
  assert.match(remove.stdout, new RegExp(`removed ${file}`))
  assert.equal(existsSync(file), false)
  const again = await home.sup(['unstartup', '--unit-dir', dir])
  assert.equal(again.code, 0)
  assert.match(again.stdout, /nothing to remove/)
})

test('sup startup writes a .socket unit beside the service for saved apps with listen; unstartup removes both', async (t) => {
  const home = useSupHome(t)
  const dir = join(home.home, 'units')
  const port = await freePort()
  const start = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web', '--listen', `127.0.0.1:${port}`], { env: { PORT: String(port) } })
  assert.equal(start.code, 0, start.stderr)
  // Only what `sup save` wrote counts.
  const before = JSON.parse((await home.sup(['startup', '--unit-dir', dir, '--json'])).stdout)
  assert.equal(before.socket_unit, null)
  assert.equal((await home.sup(['save'])).code, 0)

  const result = await home.sup(['startup', '--unit-dir', dir, '--json'])
  assert.equal(result.code, 0, result.stderr)
  const info = JSON.parse(result.stdout)
  const socketFile = join(dir, `sup-${me}.socket`)
  assert.equal(info.socket_unit_file, socketFile)
  assert.deepEqual(info.listen, [`127.0.0.1:${port}`])
  assert.equal(readFileSync(socketFile, 'utf8'), info.socket_unit)
  assert.match(info.socket_unit, new RegExp(`^ListenStream=127\\.0\\.0\\.1:${port}$`, 'm'))
  assert.match(info.socket_unit, new RegExp(`^Service=sup-${me}\\.service$`, 'm'))
  assert.match(info.unit, new RegExp(`^Requires=sup-${me}\\.socket$`, 'm'))
  assert.match(info.next.join('\n'), new RegExp(`systemctl enable sup-${me}\\.service sup-${me}\\.socket`))
  if (hasSystemdAnalyze()) {
    const verify = await new Promise((resolve) => {
      execFile('systemd-analyze', ['verify', info.unit_file, socketFile], { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, output: stdout + stderr }))
    })
    assert.deepEqual(verify, { code: 0, output: '' }, 'systemd-analyze verify has nothing to say about either unit')
  }

  const remove = await home.sup(['unstartup', '--unit-dir', dir])
  assert.equal(remove.code, 0, remove.stderr)
  assert.match(remove.stdout, new RegExp(`removed ${socketFile}`))
  assert.equal(existsSync(socketFile), false)
})

test('sup startup refuses what it cannot do, in one line', async (t) => {
  const home = useSupHome(t)
  const upstart = await home.sup(['startup', 'upstart', '--print'])
  assert.equal(upstart.code, 1)
  assert.equal(upstart.stderr, 'sup: startup system "upstart" is not supported: sup writes systemd units (sup startup systemd)\n')
  const nobody = await home.sup(['startup', '--user', 'no-such-user-for-sup', '--print'])
  assert.equal(nobody.code, 1)
  assert.equal(nobody.stderr, 'sup: user "no-such-user-for-sup" not found (give an existing account with --user)\n')
  const blocked = join(home.home, 'a-file')
  writeFileSync(blocked, '')
  const unwritable = await home.sup(['startup', '--unit-dir', join(blocked, 'units')])
  assert.equal(unwritable.code, 1)
  assert.match(unwritable.stderr, /^sup: cannot write .*a-file\/units\/sup-.*\.service: .*\(run as root, or pick another --unit-dir\)\n$/)
})

test('issue 19: a listen path with a newline never becomes a directive of the root-written socket unit', async (t) => {
  const home = useSupHome(t)
  const dir = join(home.home, 'units')
  // The unix:/tmp/l.sock\nExecStartPre=/tmp/e, in a folder of the test's own that exists.
  mkdirSync(join(home.home, 'l\nExecStartPre='))
  const evil = `unix:${home.home}/l\nExecStartPre=/e`
  const start = await home.sup(['start', join(APPS, 'http-server.js'), '--name', 'web', '--listen', evil])
  assert.equal(start.code, 0, start.stderr)
  assert.equal((await home.sup(['save'])).code, 0)
  const result = await home.sup(['startup', 'systemd', '--home', home.home, '--unit-dir', dir])
  assert.equal(result.code, 1)
  assert.equal(result.stderr, `sup: cannot write listen of app "web" into a systemd unit: "unix:${home.home}/l\\nExecStartPre=/e" holds the control character "\\n" (it would end the line, and what follows would be a directive of its own); change it, then sup save, then run sup startup again\n`)
  assert.equal(existsSync(join(dir, `sup-${me}.socket`)), false, 'no socket unit written')
  assert.equal(existsSync(join(dir, `sup-${me}.service`)), false, 'no service unit written')
})

test('issue 19: a hand-edited dump is checked like a start request; a symlinked one is refused', async (t) => {
  const home = useSupHome(t)
  const dir = join(home.home, 'units')
  const app = (/** @type {object} */ config) => ({ config: { name: 'web', script: join(APPS, 'http-server.js'), cwd: APPS, exec_mode: 'fork', ...config }, workers: [{ instance: 0, run: true }] })
  const daemon = { pid: 1, state: 'stopped' }
  // A second app that fails the app.start schema is left out (resurrect leaves it out too), and said so.
  writeFileSync(home.paths.dump, JSON.stringify({ sup_dump: 1, daemon, apps: [app({ listen: ['127.0.0.1:8080'] }), app({ name: 'x\nExecStartPre=/tmp/e', listen: ['8081'] }), app({ name: 'big', listen: ['8082'], instances: 1e6 })] }), { mode: 0o600 })
  const result = await home.sup(['startup', '--unit-dir', dir, '--json'])
  assert.equal(result.code, 0, result.stderr)
  const info = JSON.parse(result.stdout)
  assert.deepEqual(info.listen, ['127.0.0.1:8080'])
  assert.deepEqual(info.skipped, ['app "x\\nExecStartPre=/tmp/e": config.name has an invalid format', 'app "big": config.instances must be <= 1024'])
  assert.doesNotMatch(info.socket_unit, /ExecStartPre/)
  if (hasSystemdAnalyze()) {
    const verify = await new Promise((resolve) => {
      execFile('systemd-analyze', ['verify', info.unit_file, info.socket_unit_file], { timeout: 30_000 }, (err, stdout, stderr) => resolve({ code: err ? err.code : 0, output: stdout + stderr }))
    })
    assert.deepEqual(verify, { code: 0, output: '' }, 'systemd-analyze verify has nothing to say about either unit')
  }

  // A dump that is a symlink (to a file the user may not read) is not followed.
  const dump = home.paths.dump
  rmSync(dump)
  symlinkSync('/etc/shadow', dump)
  const linked = await home.sup(['startup', '--unit-dir', dir])
  assert.equal(linked.code, 1)
  assert.equal(linked.stderr, `sup: the dump ${dump} cannot be read: it is a symbolic link (sup reads its own files only)\n`)
})
