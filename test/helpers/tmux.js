// @ts-check
// A real terminal for tests: a private tmux server (its own socket), one window of a given
// size running a command; the test reads the screen as text and types keys.
import { execFile } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { waitFor } from './wait.js'

/**
 * @param {string[]} args
 * @returns {Promise<{ code: number, stdout: string, stderr: string }>}
 */
function tmux (socket, args) {
  return new Promise((resolve) => {
    execFile('tmux', ['-L', socket, ...args], { timeout: 10_000 }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr })
    })
  })
}

/**
 * Start `command` (run by sh) in a detached tmux window; the server is killed when the test ends.
 * @param {import('node:test').TestContext} t
 * @param {{ command: string, width: number, height: number, env: Record<string, string | undefined> }} options
 */
export async function startTerminal (t, { command, width, height, env }) {
  const socket = `sup-test-${randomBytes(4).toString('hex')}`
  t.after(() => tmux(socket, ['kill-server']))
  const envArgs = Object.entries(env).filter(([, v]) => v !== undefined).flatMap(([k, v]) => ['-e', `${k}=${v}`])
  const started = await tmux(socket, ['-f', '/dev/null', 'new-session', '-d', '-s', 'main', '-x', String(width), '-y', String(height), ...envArgs, command])
  if (started.code !== 0) throw new Error(`tmux did not start (${started.stderr.trim()}); is tmux installed? (.ci/run installs it)`)

  /** @param {{ escapes?: boolean }} [options] escapes: with the colour and attribute sequences (-e) */
  const screen = async ({ escapes = false } = {}) => (await tmux(socket, ['capture-pane', '-p', ...(escapes ? ['-e'] : []), '-t', 'main'])).stdout

  return {
    screen,
    /** @param {...string} keys tmux key names: Enter, Up, j, C-c ... */
    keys: async (...keys) => { await tmux(socket, ['send-keys', '-t', 'main', ...keys]) },
    /** @param {number} w @param {number} h */
    resize: async (w, h) => { await tmux(socket, ['resize-window', '-t', 'main', '-x', String(w), '-y', String(h)]) },
    /** A tmux format of the pane, e.g. '#{mouse_any_flag}' (whether the program asked for the mouse). @param {string} format */
    format: async (format) => (await tmux(socket, ['display-message', '-p', '-t', 'main', format])).stdout.trim(),
    /** Whether the command is still running (the session ends with it). */
    running: async () => (await tmux(socket, ['has-session', '-t', 'main'])).code === 0,
    /**
     * Read the screen until `predicate` holds; the screen is checked every 100 ms up to the deadline.
     * @param {(text: string) => boolean} predicate
     * @param {{ timeout?: number, what?: string }} [options]
     */
    async waitFor (predicate, { timeout = 15_000, what = 'the expected screen' } = {}) {
      let text = ''
      const seen = await waitFor(async () => {
        text = await screen()
        return predicate(text) && { text }
      }, { what, timeout, interval: 100, show: () => `the screen:\n${text}` })
      return seen.text
    }
  }
}
