// @ts-check
// Sizes as users write them ("200M", "10MB", 512): read the same way by the CLI (app config)
// and the daemon (its SUP_LOG_* defaults).
import { SupError } from './errors.js'

const BYTE_UNITS = { '': 1, K: 1024, M: 1024 ** 2, G: 1024 ** 3, T: 1024 ** 4 }

/**
 * Read a size: bytes as a number, or "512K", "200M", "1.5G", "100MB" (K = 1024).
 * @param {unknown} value
 * @param {string} option named in the error
 * @param {{ allowZero?: boolean }} [options]
 * @returns {number} integer bytes
 */
export function parseBytes (value, option, { allowZero = false } = {}) {
  const match = typeof value === 'string' ? /^(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?$/i.exec(value.trim()) : null
  const bytes = typeof value === 'number'
    ? value
    : match ? Number(match[1]) * BYTE_UNITS[/** @type {keyof typeof BYTE_UNITS} */ (match[2].toUpperCase())] : NaN
  if (!Number.isFinite(bytes) || bytes < 0 || Math.round(bytes) < (allowZero ? 0 : 1) || bytes > Number.MAX_SAFE_INTEGER) {
    const text = typeof value === 'string' ? value : JSON.stringify(value) ?? String(value)
    throw new SupError('SUP_ERR_CONFIG_INVALID_OPTION', { option, value: text, reason: `use bytes, or a number with K, M or G (e.g. 200M)${allowZero ? '; 0 turns it off' : ''}` })
  }
  return Math.round(bytes)
}
