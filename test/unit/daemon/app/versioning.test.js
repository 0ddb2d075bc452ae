// @ts-check
import assert from 'node:assert/strict'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { after, describe, test } from 'node:test'
import { readVersioning } from '../../../../daemon/app/versioning.js'

const A = 'a'.repeat(40)
const B = 'b'.repeat(40)
const root = mkdtempSync(join(tmpdir(), 'sup-versioning-'))
after(() => rmSync(root, { recursive: true, force: true }))

/**
 * Files under a fresh folder of `root`.
 * @param {string} name
 * @param {Record<string, string>} files path -> text
 */
function tree (name, files) {
  const top = join(root, name)
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(top, path)), { recursive: true })
    writeFileSync(join(top, path), text)
  }
  mkdirSync(top, { recursive: true })
  return top
}

const ORIGIN = '[core]\n\tbare = false\n[remote "origin"]\n\turl = git@github.com:acme/api.git\n\tfetch = +refs/heads/*:refs/remotes/origin/*\n'

describe('readVersioning', () => {
  test('a branch with a loose ref, from a folder inside the work tree', async () => {
    const top = tree('loose', { '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${A}\n`, '.git/config': ORIGIN, 'src/app.js': '' })
    assert.deepEqual(await readVersioning(join(top, 'src')), { type: 'git', repo_path: top, branch: 'main', revision: A, remote: 'git@github.com:acme/api.git' })
  })

  test('a packed ref, and no remote', async () => {
    const top = tree('packed', { '.git/HEAD': 'ref: refs/heads/release/1.2\n', '.git/packed-refs': `# pack-refs with: peeled fully-peeled sorted\n${B} refs/heads/main\n${A} refs/heads/release/1.2\n` })
    assert.deepEqual(await readVersioning(top), { type: 'git', repo_path: top, branch: 'release/1.2', revision: A, remote: null })
  })

  test('a detached HEAD has a revision and no branch', async () => {
    const top = tree('detached', { '.git/HEAD': `${B}\n` })
    assert.deepEqual(await readVersioning(top), { type: 'git', repo_path: top, branch: null, revision: B, remote: null })
  })

  test('a linked work tree: HEAD of its own, refs and remotes in the common dir', async () => {
    const main = tree('main-repo', { '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${A}\n`, '.git/refs/heads/feature': `${B}\n`, '.git/config': ORIGIN, '.git/worktrees/wt/HEAD': 'ref: refs/heads/feature\n', '.git/worktrees/wt/commondir': '../..\n' })
    const wt = tree('linked', { '.git': `gitdir: ${join(main, '.git/worktrees/wt')}\n` })
    assert.deepEqual(await readVersioning(wt), { type: 'git', repo_path: wt, branch: 'feature', revision: B, remote: 'git@github.com:acme/api.git' })
  })

  test('credentials in a remote url are not shown', async () => {
    const top = tree('token', { '.git/HEAD': 'ref: refs/heads/main\n', '.git/refs/heads/main': `${A}\n`, '.git/config': '[remote "deploy"]\n\turl = https://bot:ghp_secret@github.com/acme/api.git\n' })
    assert.equal((await readVersioning(top))?.remote, 'https://github.com/acme/api.git')
  })

  test('a repository without commits yet has no revision', async () => {
    const top = tree('empty', { '.git/HEAD': 'ref: refs/heads/main\n' })
    assert.deepEqual(await readVersioning(top), { type: 'git', repo_path: top, branch: 'main', revision: null, remote: null })
  })

  test('outside a work tree, or in a folder that does not exist: null', async () => {
    assert.equal(await readVersioning('/'), null)
    assert.equal(await readVersioning(join(root, 'no-such-folder')), null)
  })
})
