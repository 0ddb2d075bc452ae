#!/usr/bin/env node
// @ts-check
// `node bin/sup.js` works as it always did; the `sup` command itself is bin/sup.cjs (see there
// why it is CommonJS).
import { createRequire } from 'node:module'

createRequire(import.meta.url)('./sup.cjs')
