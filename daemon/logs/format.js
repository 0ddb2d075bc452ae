// @ts-check
// How a log line is written to a file: as it came, with a timestamp prefix (`time`,
// `log_date_format`), or as one JSON object (`log_type: json`). Pure; the clock is the entry's.
import { formatDate } from '../../ipc/date-format.js'

export { formatDate }

/**
 * @typedef {Pick<import('../../ipc/app-config.js').AppConfig, 'time' | 'log_type' | 'log_date_format'>} FormatOptions
 */

/**
 * The timestamp written with a line: the app's format, or ISO 8601 UTC.
 * @param {number} time
 * @param {FormatOptions} options
 */
export function formatStamp (time, options) {
  return options.log_date_format ? formatDate(time, options.log_date_format) : new Date(time).toISOString()
}

/**
 * One line as written to a log file (without its newline).
 * @param {{ time: number, app: string, instance: number, stream: string, line: string }} entry
 * @param {FormatOptions} options
 */
export function formatLine (entry, options) {
  if (options.log_type === 'json') {
    return JSON.stringify({ app: entry.app, instance: entry.instance, stream: entry.stream, time: formatStamp(entry.time, options), message: entry.line })
  }
  return options.time || options.log_date_format ? `${formatStamp(entry.time, options)}: ${entry.line}` : entry.line
}
