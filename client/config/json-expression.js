// @ts-check
// A .json config that is not JSON5 but a JavaScript expression, as PM2 reads every .json file
// (`vm.runInThisContext('(' + text + ')')`): PM2 users write `script: ['a', 'b'].join('/')`
// or `instances: process.env.WEB_CONCURRENCY || 2` there. sup evaluates it in a context of
// its own, with the language's built-ins and a copy of `process.env` only: no `require`, no
// `process`, no file or network access, no string-to-code, and a time limit. Only a string
// (the value as JSON) comes back out, so nothing of that context reaches the CLI.
import vm from 'node:vm'

/** PM2 gives its evaluation the same limit. */
const TIME_LIMIT_MS = 1000

/**
 * @typedef {{ ok: true, value: unknown } | { ok: false, syntax: boolean, message: string, stack: string }} Evaluated
 *   syntax: the text is not an expression at all; stack: where it threw, for the line
 */

/**
 * @param {string} text the file's text, byte order mark removed
 * @param {string} file named in the error locations
 * @param {NodeJS.ProcessEnv} [env] what `process.env` holds inside (the CLI's, as in PM2)
 * @returns {Evaluated}
 */
export function evaluateJsonExpression (text, file, env = process.env) {
  // The file starts on a line of its own, so lines and columns are the file's (lineOffset).
  const source = `(() => { try { return 'ok' + (JSON.stringify((\n${text}\n)) ?? 'null') } catch (e) { return 'error' + (e && e.stack ? String(e.stack) : String(e)) } })()`
  let script
  try {
    script = new vm.Script(source, { filename: file, lineOffset: -1 })
  } catch (err) {
    return { ok: false, syntax: true, message: String(/** @type {Error} */ (err).message), stack: '' }
  }
  // afterEvaluate: promise jobs the expression queues run inside the time limit, in its own
  // queue, not later on the CLI's (where `Promise.resolve().then(() => { while (true) {} })` spun forever).
  const context = vm.createContext(Object.create(null), { codeGeneration: { strings: false, wasm: false }, microtaskMode: 'afterEvaluate' })
  vm.runInContext(`globalThis.process = { env: JSON.parse(${JSON.stringify(JSON.stringify(env))}) }`, context)
  let result
  try {
    result = script.runInContext(context, { timeout: TIME_LIMIT_MS })
  } catch (err) {
    // The time limit (the one error thrown from outside the context's own try).
    return { ok: false, syntax: false, message: String(/** @type {Error} */ (err).message), stack: '' }
  }
  if (typeof result !== 'string') return { ok: false, syntax: false, message: 'the expression did not give a value', stack: '' }
  if (result.startsWith('ok')) return { ok: true, value: JSON.parse(result.slice(2)) }
  const stack = result.slice('error'.length)
  return { ok: false, syntax: false, message: stack.split('\n')[0].replace(/^\w*Error: /, ''), stack }
}
