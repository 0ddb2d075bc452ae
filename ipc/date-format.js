// @ts-check
// dayjs-style date patterns (PM2's log_date_format, and its `pm2 logs --timestamp`), for the
// daemon's log files and the CLI's sup logs alike. Dependency-free.

const pad = (/** @type {number} */ n, width = 2) => String(n).padStart(width, '0')

/** @param {number} minutes offset east of UTC @param {string} sep */
function formatOffset (minutes, sep) {
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  return `${sign}${pad(Math.floor(abs / 60))}${sep}${pad(abs % 60)}`
}

/** Tokens of dayjs/moment formats (PM2's log_date_format), in local time. */
const TOKENS = /** @type {Record<string, (d: Date) => string>} */ ({
  YYYY: (d) => String(d.getFullYear()),
  YY: (d) => pad(d.getFullYear() % 100),
  MM: (d) => pad(d.getMonth() + 1),
  M: (d) => String(d.getMonth() + 1),
  DD: (d) => pad(d.getDate()),
  D: (d) => String(d.getDate()),
  HH: (d) => pad(d.getHours()),
  H: (d) => String(d.getHours()),
  hh: (d) => pad(d.getHours() % 12 || 12),
  h: (d) => String(d.getHours() % 12 || 12),
  mm: (d) => pad(d.getMinutes()),
  m: (d) => String(d.getMinutes()),
  ss: (d) => pad(d.getSeconds()),
  s: (d) => String(d.getSeconds()),
  SSS: (d) => pad(d.getMilliseconds(), 3),
  ZZ: (d) => formatOffset(-d.getTimezoneOffset(), ''),
  Z: (d) => formatOffset(-d.getTimezoneOffset(), ':'),
  A: (d) => d.getHours() < 12 ? 'AM' : 'PM',
  a: (d) => d.getHours() < 12 ? 'am' : 'pm',
  X: (d) => String(Math.floor(d.getTime() / 1000)),
  x: (d) => String(d.getTime())
})

// Longest tokens first, and [bracketed] text is copied as it is.
const TOKEN_PATTERN = /\[([^\]]*)\]|YYYY|YY|SSS|MM|M|DD|D|HH|H|hh|h|mm|m|ss|s|ZZ|Z|A|a|X|x/g

/**
 * Format a time with a dayjs-style pattern (`YYYY-MM-DD HH:mm:ss.SSS Z`), in local time.
 * @param {number} time ms
 * @param {string} pattern
 */
export function formatDate (time, pattern) {
  const date = new Date(time)
  return pattern.replace(TOKEN_PATTERN, (token, literal) => literal ?? TOKENS[token](date))
}
