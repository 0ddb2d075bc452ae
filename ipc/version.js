// @ts-check
// The protocol version both sides check in `hello` (design §5). A file of its own so that the
// CLI can know it without loading the method table and its schemas (docs/benchmarks.md).
export const PROTOCOL_VERSION = 1
