// Writes LINES lines of 1 KiB (1023 characters and a newline) to stdout as fast as the pipe
// takes them, then idles. Each line carries the worker's pid and a sequence number, so a
// bench can count lines lost: `<pid> <seq> xxx…`.
const lines = Number(process.env.LINES ?? 10_000)
const filler = 'x'.repeat(1024)
let seq = 0

function write () {
  while (seq < lines) {
    const head = `${process.pid} ${seq++} `
    // `=== false`: PM2's cluster workers replace stdout.write by one that returns nothing.
    if (process.stdout.write(head + filler.slice(0, 1023 - head.length) + '\n') === false) {
      process.stdout.once('drain', write)
      return
    }
  }
}

write()
setInterval(() => {}, 60_000)
