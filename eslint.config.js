import neostandard from 'neostandard'

// The daemon's event loop serves every CLI call, dashboard and worker: nothing on it may wait
// for another program (issue 25). Its child processes are asynchronous.
const SYNC_CHILD_PROCESS = ['execFileSync', 'execSync', 'spawnSync'].map((name) => ({
  name: 'node:child_process',
  importNames: [name],
  message: 'the daemon never waits for a child process on its event loop: use the asynchronous form'
}))

export default [
  ...neostandard({ ignores: ['node_modules/**', 'coverage/**'] }),
  {
    files: ['daemon/**/*.js', 'daemon/**/*.cjs'],
    rules: {
      'no-console': 'error',
      'no-restricted-imports': ['error', { paths: [...SYNC_CHILD_PROCESS, ...SYNC_CHILD_PROCESS.map((p) => ({ ...p, name: 'child_process' }))] }]
    }
  }
]
