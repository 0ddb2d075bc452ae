// Some scenarios measure features other branches are still building: they run once the
// feature is on this checkout and report "not available yet" until then.
import { freePort, runCommand, sleep, waitForPids } from './procs.js'
import { app, SUP_BIN, supHome } from './sides.js'

/** Does `sup --help` list this command? @param {string} command */
export async function cliHasCommand (command) {
  const { stdout } = await runCommand(process.execPath, [SUP_BIN, '--help'])
  return new RegExp(`^\\s+${command}\\b`, 'm').test(stdout)
}

/**
 * Does the daemon sample worker memory (the base of --max-memory-restart)? Starts an app
 * and looks for a non-zero `memory` in `sup ls --json` within a few seconds.
 * @param {import('../run.js').BenchContext} ctx
 */
export async function supSamplesMemory (ctx) {
  const home = supHome(ctx)
  const port = await freePort()
  await home.sup(['start', app('hello.js'), '--name', 'probe'], { PORT: String(port) })
  await waitForPids(port)
  const deadline = performance.now() + 4000
  let sampled = false
  while (!sampled && performance.now() < deadline) {
    await sleep(250)
    const { stdout } = await home.sup(['ls', '--json'])
    sampled = JSON.parse(stdout).some((/** @type {{ memory: number }} */ row) => row.memory > 0)
  }
  await home.close()
  return sampled
}
