// @ts-check
// The agent protocol for the daemon's ES modules: ./agent-protocol.cjs is the one definition
// (CommonJS, so the agent inside every node worker can require it). Loaded with require(): an
// ESM import of CommonJS runs Node's CJS export lexer first, a cost at every daemon start.
import { createRequire } from 'node:module'

/** @type {typeof import('./agent-protocol.cjs')} */
const protocol = createRequire(import.meta.url)('./agent-protocol.cjs')

export const { AGENT_CMD, TO_AGENT, FROM_AGENT, APP_MESSAGES, toAgent, fromAgent, agentActOf, workerActOf, dispatch } = protocol
