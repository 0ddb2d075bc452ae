// Exits with code 1 after 100 ms: a worker that crashes over and over (memory scenario's burst).
setTimeout(() => process.exit(1), 100)
