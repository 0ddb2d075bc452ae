// @ts-check
// sup monit in a real terminal (tmux): what a person sees, and what the keys do.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { startTerminal } from '../helpers/tmux.js'
import { waitFor } from '../helpers/wait.js'
import { APPS, SUP_BIN, freePort, useSupHome, waitForRows } from '../helpers/sup.js'

/** The line of the left pane that starts with `start` (after the border). @param {string} screen @param {RegExp} start */
const lineOf = (screen, start) => screen.split('\n').find((l) => start.test(l.replace(/^│/, ''))) ?? ''

test('monit shows apps and changing figures, restarts a worker on r, and follows the daemon', async (t) => {
  const home = useSupHome(t)
  const port = await freePort()
  const start = () => home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '-n', 'web'], { env: { PORT: String(port) } })
  assert.equal((await start()).code, 0)
  const stty = join(home.home, 'stty')
  // The shell records the terminal's settings before and after, to see that monit restores them.
  const command = `stty -g > ${stty}-before; ${process.execPath} ${SUP_BIN} monit; echo "exit $?" > ${stty}-exit; stty -g > ${stty}-after`
  const term = await startTerminal(t, { command, width: 100, height: 30, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })

  // formatBytes: one decimal under 100 ("87.5mb"), whole numbers from 100 ("122mb", two Node 24 workers).
  const first = await term.waitFor((s) => /▸ web \(2\) +online +\d+\.\d% +\d+(\.\d)?mb/.test(s), { what: 'the web app with its figures' })
  assert.match(first, /\? help · q quit · \/ filter · P\/M\/R\/T\/N sort · r restart · x stop/)
  // The uptime of the app line ticks: figures change without a key.
  const before = lineOf(first, /^▸ web/)
  await term.waitFor((s) => lineOf(s, /^▸ web/) !== before, { what: 'the web line to change' })

  await term.keys('Enter')
  await term.waitFor((s) => /├ #0/.test(s) && /└ #1/.test(s), { what: 'the workers of web' })
  await term.keys('j')
  await term.waitFor((s) => /web\[0\] #0/.test(s), { what: 'worker #0 selected' })

  const [old] = await home.ls()
  await term.keys('r')
  await term.waitFor((s) => s.includes('restart web[0] #0 (1 worker)?'), { what: 'the confirmation' })
  await term.keys('y')
  const rows = await waitForRows(home, (rs) => rs[0].restarts === 1 && rs[0].pid !== old.pid && rs[0].status === 'online', { what: 'worker 0 restarted' })
  assert.equal(rows[1].restarts, 0, 'only the selected worker restarted')
  await term.waitFor((s) => /├ #0 .* online +\d+\.\d% +\S+ +1 +\d+s/.test(s), { what: 'the restart counted on screen' })

  await term.keys('C-r')
  await term.waitFor((s) => s.includes('reload web[0] #0 (1 worker, one at a time)?'), { what: 'the question of Ctrl-r (reload)' })
  await term.keys('Escape')
  await term.waitFor((s) => !s.includes('one at a time)?'), { what: 'the question gone on Esc' })

  await term.resize(80, 24)
  await term.waitFor((s) => s.split('\n').length >= 24 && /web/.test(s) && /q quit/.test(s) && s.split('\n').every((l) => l.length <= 80), { what: 'the dashboard in 80x24' })

  // The daemon goes away: monit says so and waits; a new daemon is picked up.
  assert.equal((await home.sup(['kill'])).code, 0)
  await term.waitFor((s) => s.includes('the daemon went away; waiting for it'), { what: 'the daemon reported gone' })
  assert.equal(await term.running(), true)
  assert.equal((await start()).code, 0)
  await term.waitFor((s) => /web/.test(s) && !s.includes('went away') && /online/.test(s), { what: 'monit back on the new daemon' })

  await term.keys('q')
  await waitFor(async () => !(await term.running()), { what: 'monit to exit on q', interval: 100 })
  assert.equal(readFileSync(`${stty}-exit`, 'utf8').trim(), 'exit 0')
  assert.equal(readFileSync(`${stty}-after`, 'utf8'), readFileSync(`${stty}-before`, 'utf8'), 'the terminal settings are restored')
})

test('monit outside a terminal says so in one line', async (t) => {
  const home = useSupHome(t)
  const result = await home.sup(['monit'])
  assert.equal(result.code, 1)
  assert.equal(result.stderr.trim(), 'sup: sup monit needs a terminal, and this output is not one (sup ls --watch refreshes a plain table; sup ls --json is for programs)')
})

test('monit shows an app that dies every second as crashing, with its last exit, not as a green online', async (t) => {
  const home = useSupHome(t)
  // Up long enough each time to count as online (min_uptime 200 ms), then exits with code 1.
  const started = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', 'flaky', '--min-uptime', '200', '--restart-delay', '100'], { env: { EXIT_AFTER: '600' } })
  assert.equal(started.code, 0, started.stderr)
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 120, height: 35, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  const screen = await term.waitFor((s) => /▸ flaky \(1\) exit 1: .* crash×\d+/.test(s) && /crashing: \d+ in 60s, last: exited with code 1/.test(s) && /flaky\[0\] sup App \[flaky:0\] exited with code 1/.test(s), { what: 'flaky shown as crashing, with why' })
  assert.doesNotMatch(lineOf(screen, /^▸ flaky/), /online/)
  await term.keys('q')
})

/** The app names of the list, top to bottom. @param {string} screen */
const appsShown = (screen) => screen.split('\n').map((l) => /^│[▸▾] (\S+) \(\d+\)/.exec(l)?.[1]).filter((n) => n !== undefined)
/**
 * The whole help: its pages, PgDn after PgDn, until the last (the keys that changed).
 * @param {Awaited<ReturnType<typeof startTerminal>>} term
 * @param {string} size
 */
async function readHelp (term, size) {
  let seen = await term.waitFor((s) => helpBox(s) !== null, { what: `the help in ${size}` })
  let all = seen
  while (!seen.includes('l used to reload') && !/l +used to reload/.test(seen)) {
    const before = helpBox(seen)
    await term.keys('NPage')
    // The next page is the help box changed: the list behind it redraws its figures too, and a
    // screen changed only there, read as the next page, made the loop skip one.
    seen = await term.waitFor((s) => helpBox(s) !== null && helpBox(s) !== before, { what: `the next page of the help in ${size}` })
    all += seen
  }
  return all
}

/**
 * The help's box, top border to bottom border, or null until a whole one is on the screen: a
 * screen read while monit redraws can hold a page's top half over the frame before it (CI,
 * Node 22, load 5: the page with Ctrl-r read half drawn, then paged past).
 * @param {string} screen
 */
function helpBox (screen) {
  const lines = screen.split('\n')
  const top = lines.findIndex((l) => l.includes('┌─ keys'))
  if (top < 0) return null
  const start = lines[top].indexOf('┌─ keys')
  const end = lines[top].indexOf('┐', start)
  if (end < 0) return null
  const box = lines.slice(top).map((l) => l.slice(start, end + 1))
  const bottom = box.findIndex((l) => l.length === end + 1 - start && l.startsWith('└') && l.endsWith('┘'))
  return bottom < 0 ? null : box.slice(0, bottom + 1).join('\n')
}

/** Every line fits the terminal. @param {string} screen @param {number} width */
const fits = (screen, width) => screen.split('\n').every((l) => l.length <= width)

test('monit keys at 80x24, 120x35 and 200x50: ? lists the keys, / filters, N and R sort, + scales', async (t) => {
  const home = useSupHome(t)
  for (const name of ['zeta', 'alpha']) {
    const started = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', name], { env: { EXIT_AFTER: '600000' } })
    assert.equal(started.code, 0, started.stderr)
  }
  const flaky = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', 'flaky', '--min-uptime', '200', '--restart-delay', '100'], { env: { EXIT_AFTER: '600' } })
  assert.equal(flaky.code, 0, flaky.stderr)
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 80, height: 24, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  await term.waitFor((s) => appsShown(s).join(' ') === 'zeta alpha flaky', { what: 'the three apps in the order they started' })

  // + asks, then adds a worker to the selected app (the first line: zeta).
  await term.keys('+')
  await term.waitFor((s) => s.includes('scale zeta up to 2 workers?'), { what: 'the scale question' })
  await term.keys('y')
  await waitForRows(home, (rs) => rs.filter((r) => r.name === 'zeta' && r.status === 'online').length === 2, { what: 'zeta scaled to 2 workers' })
  await term.waitFor((s) => /│▸ zeta \(2\)/.test(s), { what: 'zeta (2) on screen' })

  // d: what describe knows of the selected app; Esc back.
  await term.keys('d')
  // (A long checkout path wraps the script line, so only its start is matched.)
  await term.waitFor((s) => s.includes('detail zeta') && /script +\//.test(s) && /instances +2/.test(s), { what: 'the detail of zeta' })
  // PgDn until the workers show: how far down they are depends on the path lengths and on
  // whether this machine has cgroups (the containment lines and the cgroup table come first).
  const workersShown = /#\d+ \[1\] online pid \d+/
  let page = await term.waitFor(() => true)
  for (let presses = 0; !workersShown.test(page); presses++) {
    assert.ok(presses < 6, `the workers of zeta further down the detail; last page:\n${page}`)
    const before = page
    await term.keys('NPage')
    // The next page once drawn (the detail also redraws every few seconds: any change will do).
    page = await term.waitFor((s) => s !== before, { what: 'the next page of the detail' })
  }
  await term.keys('Escape')
  await term.waitFor((s) => appsShown(s).length === 3, { what: 'back to the list' })

  // The mouse stays the terminal's (to select text) until m.
  const mouse = () => term.format('#{mouse_any_flag}#{mouse_button_flag}#{mouse_standard_flag}')
  assert.equal(await mouse(), '000')
  await term.keys('m')
  await waitFor(async () => (await mouse()).includes('1'), { what: 'monit to take the mouse after m' })
  await term.keys('m')
  await waitFor(async () => (await mouse()) === '000', { what: 'the mouse given back after m again' })

  for (const [width, height] of [[80, 24], [120, 35], [200, 50]]) {
    await term.resize(width, height)
    await term.waitFor((s) => s.split('\n').length >= height && fits(s, width) && appsShown(s).length === 3 && /\? help · q quit/.test(s), { what: `the dashboard laid out in ${width}x${height}` })
    // The crash loop, highlighted with its exit code before its status.
    await term.waitFor((s) => /│▸ flaky \(1\) exit 1: .* crash×\d+ /.test(s), { what: `flaky's crash loop with its exit code in ${width}x${height}` })

    await term.keys('?')
    const help = await readHelp(term, `${width}x${height}`)
    for (const line of [/\? h F1 +this help/, /q Ctrl-c +quit at once/, /\/ +filter by name, namespace or status/, /Ctrl-r +reload, zero-downtime/, /x +stop \(confirm\) \(was s\)/, /Ctrl-d +delete the app/, /\+ +one worker more/, /d +details of the selected app/]) assert.match(help, line)
    await term.keys('Escape')
    await term.waitFor((s) => !s.includes(' keys ') && appsShown(s).length === 3, { what: 'the help closed' })

    await term.keys('/', 'a', 'l')
    await term.waitFor((s) => appsShown(s).join(' ') === 'alpha' && s.includes('apps /al'), { what: `the list filtered to alpha in ${width}x${height}` })
    await term.keys('Enter')
    await term.keys('Escape')
    await term.waitFor((s) => appsShown(s).length === 3 && !s.includes('apps /al'), { what: 'Esc clears the filter' })

    await term.keys('N')
    await term.waitFor((s) => appsShown(s).join(' ') === 'alpha flaky zeta' && /name↑/.test(s), { what: `sorted by name in ${width}x${height}` })
    await term.keys('N')
    await term.waitFor((s) => appsShown(s).join(' ') === 'zeta flaky alpha' && /name↓/.test(s), { what: 'sorted by name, reversed' })
    await term.keys('R')
    await term.waitFor((s) => appsShown(s)[0] === 'flaky' && /rst↓/.test(s), { what: 'the crashing app first by restarts' })
  }

  // - takes zeta back to one worker, Ctrl-D deletes it: the list follows (no ghost rows).
  await term.keys('N')
  await term.waitFor((s) => appsShown(s).join(' ') === 'alpha flaky zeta', { what: 'sorted by name again' })
  await term.keys('G', '-')
  await term.waitFor((s) => s.includes('scale zeta down to 1 worker?'), { what: 'the scale-down question' })
  await term.keys('y')
  await term.waitFor((s) => /│▸ zeta \(1\) +online/.test(s), { what: 'zeta (1) online after the scale-down' })
  await term.keys('C-d')
  await term.waitFor((s) => s.includes('delete zeta (1 worker: stopped and forgotten)?'), { what: 'the delete question' })
  await term.keys('y')
  await term.waitFor((s) => appsShown(s).join(' ') === 'alpha flaky' && s.includes('deleted zeta'), { what: 'zeta gone from the list' })
  assert.deepEqual((await home.ls()).map((r) => r.name).sort(), ['alpha', 'flaky'])
  await term.keys('q')
  await waitFor(async () => !(await term.running()), { what: 'monit to exit on q', interval: 100 })
})

/** The SGR colour codes of a capture (-e): foreground 30-37, 90-97, 38;5;N. @param {string} text */
const colourCodes = (text) => [...text.matchAll(new RegExp(`${String.fromCharCode(27)}\\[([0-9;]*)m`, 'g'))].flatMap((m) => {
  const codes = m[1].split(';')
  const found = []
  for (let i = 0; i < codes.length; i++) {
    if (codes[i] === '38' && codes[i + 1] === '5') { found.push(`38;5;${codes[i + 2]}`); i += 2 } else if (/^(3[0-7]|9[0-7])$/.test(codes[i])) found.push(codes[i])
  }
  return found
})

test('monit colours: never black (30) on an 8-colour terminal (TERM=screen), none with NO_COLOR', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', 'idle'], { env: { EXIT_AFTER: '600000' } })
  assert.equal(started.code, 0, started.stderr)
  await home.sup(['stop', 'idle'])
  const again = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', 'up'], { env: { EXIT_AFTER: '600000' } })
  assert.equal(again.code, 0, again.stderr)
  // TERM set by the command: tmux gives its panes its own TERM (tmux-256color), not -e's.
  const command = `TERM=screen ${process.execPath} ${SUP_BIN} monit`
  const coloured = await startTerminal(t, { command, width: 120, height: 35, env: { SUP_HOME: home.home, PATH: process.env.PATH } })
  await coloured.waitFor((s) => /▸ up \(1\) +online/.test(s) && /▸ idle \(1\) +stopped/.test(s), { what: 'a running and a stopped app' })
  const codes = colourCodes(await coloured.screen({ escapes: true }))
  assert.ok(codes.includes('32'), `online in green: ${codes}`)
  assert.deepEqual(codes.filter((c) => c === '30' || c === '90' || c === '38;5;0' || c === '38;5;8'), [], 'no black or grey that an 8-colour terminal shows as black')

  const plain = await startTerminal(t, { command, width: 120, height: 35, env: { SUP_HOME: home.home, PATH: process.env.PATH, NO_COLOR: '1' } })
  await plain.waitFor((s) => /▸ up \(1\) +online/.test(s), { what: 'the list without colour' })
  assert.deepEqual(colourCodes(await plain.screen({ escapes: true })), [], 'NO_COLOR: no colour at all')
})

test('monit on a monochrome terminal (TERM=vt100, no colours) at 80x24: no colour codes, the selection in inverse, both charts named', async (t) => {
  const home = useSupHome(t)
  for (const name of ['up', 'idle']) {
    const started = await home.sup(['start', join(APPS, 'exits-after.js'), '-n', name], { env: { EXIT_AFTER: '600000' } })
    assert.equal(started.code, 0, started.stderr)
  }
  await home.sup(['stop', 'idle'])
  // No NO_COLOR: only the terminal's own word (`tput colors` is -1 for vt100) keeps the colours
  // off. TERM set by the command: tmux gives its panes its own TERM (tmux-256color), not -e's.
  const term = await startTerminal(t, { command: `TERM=vt100 ${process.execPath} ${SUP_BIN} monit`, width: 80, height: 24, env: { SUP_HOME: home.home, PATH: process.env.PATH } })
  const shown = await term.waitFor((s) => /[▸>] up \(1\) +online/.test(s) && /[▸>] idle \(1\) +stopped/.test(s), { what: 'a running and a stopped app' })
  const escaped = await term.screen({ escapes: true })
  assert.deepEqual(colourCodes(escaped), [], 'no colour on a terminal without colours')
  assert.match(escaped, new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*7[0-9;]*m[^\\n]*up \\(1\\)`), 'the selected line in inverse video, what stands in for colour')
  // The figures pane at 80x24: the cpu chart gets two rows, the memory chart one, named.
  assert.match(shown, /cpu 0%[┤|]/)
  assert.match(shown, /mem[┤|]/)
})
