'use strict'
// The floor: a node:cluster primary written by hand, as in the seeds. It forks WORKERS copies
// of APP, re-forks any worker that dies, and on SIGTERM/SIGINT stops them and exits.
// SCHED=rr|none picks the scheduling policy (Node's own default is rr).
const cluster = require('node:cluster')

if (process.env.SCHED === 'none') cluster.schedulingPolicy = cluster.SCHED_NONE
else cluster.schedulingPolicy = cluster.SCHED_RR

const count = Number(process.env.WORKERS ?? 2)
let stopping = false
cluster.setupPrimary({ exec: process.env.APP })
for (let i = 0; i < count; i++) cluster.fork()

cluster.on('exit', () => {
  if (!stopping) cluster.fork()
  else if (Object.keys(cluster.workers ?? {}).length === 0) process.exit(0)
})

const stop = () => {
  stopping = true
  const workers = Object.values(cluster.workers ?? {})
  if (workers.length === 0) process.exit(0)
  for (const worker of workers) worker?.process.kill('SIGTERM')
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
