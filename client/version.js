// @ts-check
import { readFileSync } from 'node:fs'

/** sup's version, from package.json. */
export const { version } = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'))
