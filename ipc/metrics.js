// @ts-check
// Shared by the CLI and the daemon: where the Prometheus endpoint listens unless told.
import { SupError } from './errors.js'

/** The endpoint is local unless a host is named (design §6). */
export const DEFAULT_METRICS_HOST = '127.0.0.1'

/**
 * @param {string} text
 * @returns {number}
 * @throws {SupError}
 */
export function parsePort (text) {
  const port = Number(text)
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) throw new SupError('SUP_ERR_METRICS_PORT_INVALID', { value: text })
  return port
}
