// @ts-check
// Run before `npm test` (package.json "pretest"): the suite drives `sup monit` in a real
// terminal (tmux), changes a daemon's clock (libfaketime), socket-activates a daemon with
// systemd's own systemd-socket-activate (package systemd), reaches daemons over a real sshd
// on 127.0.0.1 (openssh-server, openssh-client), scrapes /metrics with a real Prometheus and
// lints it with promtool (prometheus) and runs sup-runtime as PID 1 under tini (tini). When one is missing and we are
// root on a Debian-like system, install it, so that `npm ci && npm test` is all the set-up a
// fresh machine needs (README); otherwise say what to install, in one line.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** Debian package → how to tell it is there. */
const NEEDED = [
  { pkg: 'tmux', present: () => spawnSync('tmux', ['-V']).status === 0 },
  { pkg: 'systemd', present: () => spawnSync('systemd-socket-activate', ['--version']).status === 0 },
  { pkg: 'openssh-server', present: () => existsSync('/usr/sbin/sshd') },
  { pkg: 'openssh-client', present: () => spawnSync('ssh', ['-V']).status === 0 },
  { pkg: 'prometheus', present: () => spawnSync('promtool', ['--version']).status === 0 && spawnSync('prometheus', ['--version']).status === 0 },
  { pkg: 'tini', present: () => existsSync('/usr/bin/tini') },
  { pkg: 'libfaketime', present: () => existsSync('/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1') || existsSync('/usr/lib/aarch64-linux-gnu/faketime/libfaketimeMT.so.1') }
]

const missing = NEEDED.filter((n) => !n.present()).map((n) => n.pkg)
if (missing.length > 0) {
  const canInstall = process.platform === 'linux' && process.getuid?.() === 0 && spawnSync('apt-get', ['--version']).status === 0
  if (!canInstall) {
    process.stderr.write(`npm test needs ${missing.join(' and ')}: install ${missing.length > 1 ? 'them' : 'it'} (Debian/Ubuntu: apt-get install -y ${missing.join(' ')}), then run npm test again\n`)
    process.exit(1)
  }
  process.stdout.write(`installing what the tests need: ${missing.join(' ')}\n`)
  // A fresh machine's own apt run may hold the lock for a while: wait for it (up to 2 min).
  const wait = ['-o', 'DPkg::Lock::Timeout=120']
  for (const args of [[...wait, 'update'], [...wait, 'install', '-y', '--no-install-recommends', ...missing]]) {
    const run = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
    if (run.status !== 0) {
      process.stderr.write(`apt-get ${args.join(' ')} failed (exit ${run.status}); install ${missing.join(' ')} by hand, then run npm test again\n`)
      process.exit(1)
    }
  }
}
