/**
 * pi's terminal UI package (`@mariozechner/pi-tui`), for the benches that
 * measure panto beside it. Imported here by specifier rather than through the
 * root import map: `deno task` installs every package of the root lockfile,
 * so pi's dependencies (koffi, protobufjs, …) would be downloaded on panto's
 * first start with a warning about their build scripts. Bench commands keep
 * them in their own lockfile (`--lock=bench/bench.lock`, see
 * docs/benchmarks.md).
 *
 * @module
 */
export * from "npm:@mariozechner/pi-tui@0.73.1";
