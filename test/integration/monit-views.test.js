// @ts-check
// sup monit's full-screen log and events views in a real terminal (tmux), at 80×24,
// 120×35 and 200×50: what a person sees after each key.
import assert from 'node:assert/strict'
import { join } from 'node:path'
import { test } from 'node:test'
import { startTerminal } from '../helpers/tmux.js'
import { APPS, SUP_BIN, freePort, useSupHome, waitForRows } from '../helpers/sup.js'

const SIZES = [[80, 24], [120, 35], [200, 50]]
/** Generous: two cores shared by the whole suite. */
const TIMEOUT = 30_000

/** The numbers of the flood's lines on screen ("flood[0] out 0:<n>:xxx"), top to bottom. @param {string} screen */
const shownLines = (screen) => [...screen.matchAll(/out 0:(\d+):x/g)].map((m) => Number(m[1]))
/** @param {string} screen @param {number} width */
const fits = (screen, width) => screen.split('\n').every((l) => l.length <= width)

test('the log view scrolls, goes to both ends, finds a line, wraps and follows, at 80x24, 120x35 and 200x50', async (t) => {
  const home = useSupHome(t)
  // 300 numbered lines ("0:<n>:xxx..."), then it stays up, quiet.
  const started = await home.sup(['start', join(APPS, 'log-flood.js'), '-n', 'flood', '--', '300', '--stay'])
  assert.equal(started.code, 0, started.stderr)
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 80, height: 24, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  await term.waitFor((s) => /flood/.test(s), { what: 'the flood app in the list', timeout: TIMEOUT })
  await term.keys('l')
  await term.waitFor((s) => shownLines(s).includes(299) && /following · 300 lines/.test(s) && /logs of flood \(all workers\)/.test(s), { what: 'the log view at the newest line', timeout: TIMEOUT })

  for (const [width, height] of SIZES) {
    const at = `at ${width}x${height}`
    await term.resize(width, height)
    await term.keys('G')
    // A screenful at the new size: until monit has redrawn after the resize, tmux shows the
    // last frame (drawn for the old size) in the bigger pane, which passes every other check.
    const end = await term.waitFor((s) => fits(s, width) && s.split('\n').length >= height && shownLines(s).at(-1) === 299 && /following/.test(s) && shownLines(s).length >= height - 8,
      { what: `a screenful of lines ending at the newest ${at}`, timeout: TIMEOUT })

    // PgUp: a page of older lines, and the view stops following.
    await term.keys('PPage')
    const up = await term.waitFor((s) => /paused/.test(s) && !shownLines(s).includes(299) && shownLines(s).length > 0, { what: `older lines after PgUp ${at}`, timeout: TIMEOUT })
    assert.ok(shownLines(up)[0] < shownLines(end)[0], `PgUp shows older lines ${at}`)
    assert.ok(shownLines(up).at(-1) >= shownLines(end)[0] - 1, `a page, not more ${at}`)
    await term.keys('g')
    await term.waitFor((s) => shownLines(s)[0] === 0, { what: `the oldest line on g ${at}`, timeout: TIMEOUT })
    await term.keys('G')
    await term.waitFor((s) => shownLines(s).at(-1) === 299 && /following/.test(s), { what: `back to the end on G ${at}`, timeout: TIMEOUT })

    // Search from the top: ":25" is in lines 25 and 250-259.
    await term.keys('g')
    await term.waitFor((s) => shownLines(s)[0] === 0, { what: `the top ${at}`, timeout: TIMEOUT })
    await term.keys('/', ':', '2', '5')
    await term.waitFor((s) => /\/:25/.test(s), { what: `the search being typed ${at}`, timeout: TIMEOUT })
    await term.keys('Enter')
    await term.waitFor((s) => /":25" 1\/11/.test(s) && shownLines(s).includes(25), { what: `the first match ${at}`, timeout: TIMEOUT })
    await term.keys('n')
    await term.waitFor((s) => /":25" 2\/11/.test(s) && shownLines(s).includes(250) && !shownLines(s).includes(0), { what: `the next match on n ${at}`, timeout: TIMEOUT })
    await term.keys('N')
    await term.waitFor((s) => /":25" 1\/11/.test(s) && shownLines(s).includes(25), { what: `the previous match on N ${at}`, timeout: TIMEOUT })
    await term.keys('/', 'Enter')
    await term.waitFor((s) => !/":25"/.test(s), { what: `the search cleared ${at}`, timeout: TIMEOUT })

    await term.keys('w')
    await term.waitFor((s) => /wrap off/.test(s), { what: `wrap off ${at}`, timeout: TIMEOUT })
    await term.keys('w')
    await term.waitFor((s) => !/wrap off/.test(s), { what: `wrap on again ${at}`, timeout: TIMEOUT })
  }

  // Follow off: new lines come in below and the screen stays; follow on: it moves to them.
  await term.keys('G')
  await term.waitFor((s) => /following · 300 lines/.test(s), { what: 'following', timeout: TIMEOUT })
  await term.keys('f')
  const paused = await term.waitFor((s) => /paused · 300 lines/.test(s), { what: 'follow off', timeout: TIMEOUT })
  assert.equal((await home.sup(['restart', 'flood'])).code, 0)
  const behind = await term.waitFor((s) => /paused, 300 below · 600 lines/.test(s), { what: 'the new lines counted below', timeout: TIMEOUT })
  assert.deepEqual(shownLines(behind), shownLines(paused), 'a paused view stays where it was')
  await term.keys('f')
  await term.waitFor((s) => /following · 600 lines/.test(s) && shownLines(s).at(-1) === 299, { what: 'following again, at the newest', timeout: TIMEOUT })

  await term.keys('Escape')
  await term.waitFor((s) => /name +status/.test(s) && /flood/.test(s) && !/following/.test(s), { what: 'back to the list on Esc', timeout: TIMEOUT })
  await term.keys('q')
})

test('the events view shows why a crash-looping app restarts: exit code, crash loop, and the countdown to the next try', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'crash-on-boot.js'), '--name', 'boom', '--min-uptime', '1000', '--max-restarts', '2', '--restart-delay', '50'])
  assert.equal(started.code, 0, started.stderr)
  await waitForRows(home, (rows) => rows[0]?.status === 'errored', { what: 'boom errored' })
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 80, height: 24, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  await term.waitFor((s) => /boom/.test(s), { what: 'boom in the list', timeout: TIMEOUT })
  await term.keys('e')
  for (const [width, height] of SIZES) {
    const at = `at ${width}x${height}`
    await term.resize(width, height)
    const screen = await term.waitFor((s) => fits(s, width) &&
      /events of boom/.test(s) &&
      /crash loop: boom: last exit code 3 \(worker 0, \d+s ago\); next try in \d+s/.test(s) &&
      /boom:0 +restarting +exited with code 3; restarting in/.test(s) &&
      /boom:0 +crash-loop +exited with code 3; crash loop/.test(s), { what: `the crash loop and its reasons ${at}`, timeout: TIMEOUT })
    // The countdown moves by itself.
    const next = Number(/next try in (\d+)s/.exec(screen)?.[1])
    await term.waitFor((s) => Number(/next try in (\d+)s/.exec(s)?.[1]) !== next, { what: `the countdown to move ${at}`, timeout: TIMEOUT })
  }
  await term.keys('a')
  await term.waitFor((s) => /events of all apps/.test(s) && /crash-loop/.test(s), { what: 'all apps on a', timeout: TIMEOUT })
  await term.keys('Escape')
  await term.waitFor((s) => /name +status/.test(s) && !/events of/.test(s), { what: 'back to the list on Esc', timeout: TIMEOUT })
  // The help lists the keys that open the views, and the views' own keys.
  await term.keys('?')
  await term.waitFor((s) => /l +full-screen logs of the selection/.test(s) && /e +events of the selection's app/.test(s), { what: 'l and e in the help', timeout: TIMEOUT })
  await term.keys('NPage')
  await term.waitFor((s) => /log view/.test(s) && /f +follow new lines on\/off/.test(s) && /n +next match/.test(s), { what: 'the log view\'s keys in the help', timeout: TIMEOUT })
  await term.keys('q')
})

test('the events view follows a reload as it happens: its beginning, the workers it starts and retires, its end', async (t) => {
  const home = useSupHome(t)
  const started = await home.sup(['start', join(APPS, 'http-server.js'), '-i', '2', '-n', 'web'], { env: { PORT: String(await freePort()) } })
  assert.equal(started.code, 0, started.stderr)
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 120, height: 35, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  await term.waitFor((s) => /web/.test(s), { what: 'web in the list', timeout: TIMEOUT })
  await term.keys('e')
  await term.waitFor((s) => /events of web/.test(s) && /web:1 +online/.test(s) && /following/.test(s), { what: 'the events of web', timeout: TIMEOUT })
  const reloaded = await home.sup(['reload', 'web'])
  assert.equal(reloaded.code, 0, reloaded.stderr)
  const screen = await term.waitFor((s) => /web +reload +reload of 2 worker\(s\) begins/.test(s) && /web +reload +reload done in \d+ ms: reloaded \(2 started, 2 retired\)/.test(s), { what: 'the reload from begin to end', timeout: TIMEOUT })
  const lines = screen.split('\n')
  const begin = lines.findIndex((l) => /reload of 2 worker/.test(l))
  const end = lines.findIndex((l) => /reload done/.test(l))
  const between = lines.slice(begin + 1, end).join('\n')
  assert.equal((between.match(/web:\d+ +spawned/g) ?? []).length, 2, between)
  assert.equal((between.match(/web:\d+ +exited +exited with signal/g) ?? []).length, 2, between)
  await term.keys('q')
})

test('the events view says why a worker was replaced for its memory', async (t) => {
  const home = useSupHome(t)
  // The worker's child holds 150 MiB, over the 120 MiB limit: replaced on the first sample over it.
  const started = await home.sup(['start', join(APPS, 'memory-hog.js'), '-n', 'hog', '--max-memory-restart', '120M', '--min-uptime', '100'], { env: { HOG_MB: '150' } })
  assert.equal(started.code, 0, started.stderr)
  const term = await startTerminal(t, { command: `${process.execPath} ${SUP_BIN} monit`, width: 120, height: 35, env: { SUP_HOME: home.home, NO_COLOR: '1', PATH: process.env.PATH, TERM: 'xterm' } })
  await term.waitFor((s) => /hog/.test(s), { what: 'hog in the list', timeout: TIMEOUT })
  await term.keys('e')
  await term.waitFor((s) => /events of hog/.test(s) && /hog:0 +memory-limit +using [\d.]+ MiB, over max_memory_restart \(120(\.0)? MiB\): replacing it/.test(s), { what: 'the memory limit and why', timeout: TIMEOUT })
  await term.keys('q')
})
