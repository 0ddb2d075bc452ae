import neostandard from 'neostandard'

export default [
  ...neostandard({ ignores: ['node_modules/**', 'coverage/**'] }),
  {
    files: ['daemon/**/*.js'],
    rules: { 'no-console': 'error' }
  }
]
