// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { groupMembers } from '../../../../daemon/dump/reap-previous.js'

/**
 * @param {number} pid
 * @param {number} pgid
 * @param {string} startTime
 * @param {string} [state]
 */
const proc = (pid, pgid, startTime, state = 'S') => ({ pid, ppid: 1, pgid, startTime, state })

describe('groupMembers', () => {
  /** @type {Array<[string, ReturnType<typeof proc>[], number, string | null, number[]]>} [name, processes, leader, leader start, expected] */
  const rows = [
    ['the leader is gone: its members', [proc(11, 10, '600'), proc(12, 10, '700'), proc(20, 20, '650')], 10, '500', [11, 12]],
    ['the leader is the recorded one: members, not the leader', [proc(10, 10, '500'), proc(11, 10, '600')], 10, '500', [11]],
    ['the leader pid was reused: nothing (the old group must be empty)', [proc(10, 10, '900'), proc(11, 10, '950')], 10, '500', []],
    ['members older than the leader cannot be its', [proc(11, 10, '400'), proc(12, 10, '600')], 10, '500', [12]],
    ['zombies are left to their parent', [proc(11, 10, '600', 'Z'), proc(12, 10, '600')], 10, '500', [12]],
    ['no recorded start time: nothing', [proc(11, 10, '600')], 10, null, []]
  ]
  for (const [name, procs, leader, start, expected] of rows) {
    test(name, () => assert.deepEqual(groupMembers(procs, leader, start).map((p) => p.pid), expected))
  }
})
