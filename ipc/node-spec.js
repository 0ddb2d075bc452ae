// @ts-check
// Which `interpreter` values name a node (client and daemon agree on it): those run with sup's
// agent and may run in cluster mode; any other value is a program of its own (python3, bun).
import path from 'node:path'

/**
 * "node", "node@22", or a file named like node ("/usr/bin/node", "node22", "nodejs").
 * @param {string} value
 */
export function isNodeSpec (value) {
  return /^node@/.test(value) || /^node(js)?[-@]?[\d.]*(\.exe)?$/.test(path.basename(value))
}
